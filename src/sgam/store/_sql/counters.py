"""Numbers a tenant sees, counted per tenant (``tenant_counters``).

An id drawn from one counter for every tenant tells a tenant how much the others wrote
between two of its own ids. Each tenant instead draws from its own row, one per
numbering (``name``: the table whose ids it numbers), several numbers in one statement.
The row stays held until the unit of work ends, so a number is never drawn twice (not
even after the row that had it is erased) and a tenant's numbers follow the order in
which its units of work commit."""

from __future__ import annotations

from .session import Session

DRAW = (
    "INSERT INTO tenant_counters AS c (tenant, name, last) VALUES (?, ?, ?) "
    "ON CONFLICT (tenant, name) DO UPDATE SET last = c.last + excluded.last RETURNING last"
)
"""Reserve the next n numbers of a tenant's numbering (tenant, name, n); answer the last."""


def draw_numbers(db: Session, tenant: str, name: str, count: int) -> list[int]:
    """``tenant``'s next ``count`` numbers of numbering ``name``, ascending."""
    row = db.row(DRAW, (tenant, name, count))
    assert row is not None
    last = int(row[0])
    return list(range(last - count + 1, last + 1))
