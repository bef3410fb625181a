"""The pieces of evidence search that both backends phrase alike: an episode filter, the
versions visible at a transaction time, and the facts still to embed. Ranking, vectors
and the full-text index stay with each backend."""

from __future__ import annotations

from typing import Any

from .._requests import SearchFilter
from ..contract.search import fact_text
from .ledger import unfollowed
from .session import Session


def filter_sql(flt: SearchFilter, db: Session, alias: str = "e") -> tuple[str, list[Any]]:
    """Conditions (each after `` AND ``) on episodes ``alias`` beyond the tenant."""
    clauses: list[str] = []
    params: list[Any] = []
    for condition, wanted in ((">=", flt.since), ("<=", flt.until)):
        if wanted is not None:
            clauses.append(f"{alias}.occurred_at {condition} ?")
            params.append(db.moment(wanted))
    if flt.known_at is not None:
        clauses.append(f"{alias}.recorded_at <= ?")
        params.append(db.moment(flt.known_at))
    for column, value in (("session", flt.session), ("speaker", flt.speaker)):
        if value is not None:
            clauses.append(f"{alias}.{column} = ?")
            params.append(value)
    for column, value in (("subject", flt.subject), ("memory_type", flt.memory_type)):
        if value is not None:
            clauses.append(f"EXISTS (SELECT 1 FROM operations o WHERE o.tenant = {alias}.tenant "
                           f"AND o.source = {alias}.episode_id AND o.{column} = ?)")
            params.append(value)
    return "".join(f" AND {clause}" for clause in clauses), params


def visible(known_at: int | None, db: Session) -> tuple[str, tuple[Any, ...]]:
    """Versions of ``a`` current now, or as the ledger stood at ``known_at``."""
    if known_at is None:
        return "a.recorded_to IS NULL", ()
    return "a.recorded_from <= ? AND (a.recorded_to IS NULL OR a.recorded_to > ?)", (db.moment(known_at),) * 2


def holding(tenant: str, known_at: int | None, at: int, db: Session) -> tuple[str, tuple[Any, ...]]:
    """Versions of ``a`` visible as ``visible`` says that hold at valid time ``at``: begun
    by then, before their stored end, and not ended by a later version of their key
    visible at the same instant (a version ends where the next one starts)."""
    seen, known = visible(known_at, db)
    later = seen.replace("a.", "n.")
    return (f"{seen} AND a.valid_from <= ? AND (a.valid_to IS NULL OR a.valid_to > ?) "
            f"AND {unfollowed('a', later, db.true)}",
            (*known, db.moment(at), db.moment(at), tenant, *known, db.moment(at)))


def assertions_without_vectors(db: Session, tenant: str, model: str, limit: int,
                               model_probe: str = "v.model") -> list[tuple[int, str]]:
    """Current assertion rows with no vector of ``model``: (row key, "subject attribute value").
    ``model_probe``: how the vector's model is compared (PostgreSQL compares an expression,
    so that each row is one probe of the primary key: ``postgres/search.py``)."""
    rows = db.rows(
        "SELECT a.row_id, a.subject, a.attribute, a.value FROM assertions a "
        "WHERE a.tenant = ? AND a.recorded_to IS NULL AND NOT EXISTS "
        "(SELECT 1 FROM assertion_vectors v WHERE v.tenant = a.tenant AND v.row_id = a.row_id "
        f"AND {model_probe} = ?) ORDER BY a.row_id LIMIT ?",
        (tenant, model, limit),
    )
    return [(int(r[0]), fact_text(r[1], r[2], r[3])) for r in rows]
