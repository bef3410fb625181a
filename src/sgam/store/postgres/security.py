"""Refuse connections that row-level security would not bind.

RLS does not apply to superusers, to roles with BYPASSRLS, and (without FORCE) to table
owners; a role that owns the tables can also drop the policies. The backend checks the
connecting role once, before any tenant data is touched.
"""

from __future__ import annotations

from typing import Any

import psycopg

from ..._core.errors import UnsafeDatabaseError
from .migrations import TENANT_TABLES

_CHECK = """
SELECT r.rolname, r.rolsuper, r.rolbypassrls,
       coalesce((SELECT array_agg(c.relname::text ORDER BY c.relname) FROM pg_class c
                 WHERE c.relnamespace = current_schema()::regnamespace
                   AND c.relname = ANY(%s)
                   AND pg_has_role(current_user, c.relowner, 'MEMBER')), '{}')
FROM pg_roles r WHERE r.rolname = current_user
"""


def unsafe_reasons(conn: psycopg.Connection[Any]) -> list[str]:
    """Why this connection could see or change other tenants' rows (empty: it cannot)."""
    row = conn.execute(_CHECK, (list(TENANT_TABLES),)).fetchone()
    assert row is not None
    role, superuser, bypass, owned = row
    reasons = []
    if superuser:
        reasons.append(f"role {role!r} is a superuser")
    if bypass:
        reasons.append(f"role {role!r} has BYPASSRLS")
    if owned:
        reasons.append(f"role {role!r} owns (or is a member of the owner of) {', '.join(owned)}")
    return reasons


def check_safe(conn: psycopg.Connection[Any], where: str) -> None:
    reasons = unsafe_reasons(conn)
    if reasons:
        raise UnsafeDatabaseError(
            f"refusing {where}: {'; '.join(reasons)}. Connect as a role that owns no sgam table, "
            "is not superuser and lacks BYPASSRLS (see docs/postgres.md), or pass "
            "allow_unsafe_for_tests=True in tests only."
        )
