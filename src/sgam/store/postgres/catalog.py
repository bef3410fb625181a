"""The schema of a PostgreSQL database as normalised, sorted text: what the migrations
add up to, in one file a reader can take in (``migrations/schema.txt``, checked by a
test). The current definition of a function is its last ``CREATE OR REPLACE``; here it
is written out whole.

Everything is read from the catalogs of the current schema, as the server prints it
(``format_type``, ``pg_get_constraintdef``, ``pg_get_indexdef``, ``pg_get_triggerdef``,
``pg_get_functiondef``; the snapshot's schema is ``public``). Per table, in name order:
row-level security, columns in their order, constraints, indexes (an index a constraint
owns is that constraint's line), triggers and policies; then sequences, views and
functions. Objects an extension owns (pgvector's) are left out; a policy's role is
``CURRENT_USER`` when it is the role reading (the owner), as the migrations write it;
NOT NULL constraints are the columns' ``NOT NULL``.
"""

from __future__ import annotations

from typing import Any

import psycopg

_NOT_EXTENSION = (
    "NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = {catalog}::regclass AND d.objid = {oid} "
    "AND d.deptype = 'e')"
)
_IN_SCHEMA = "{namespace} = current_schema()::regnamespace"

_TABLES = (
    "SELECT c.oid, c.relname, c.relrowsecurity, c.relforcerowsecurity, c.relpersistence FROM pg_class c "
    f"WHERE c.relkind IN ('r', 'p') AND {_IN_SCHEMA.format(namespace='c.relnamespace')} "
    f"AND {_NOT_EXTENSION.format(catalog=repr('pg_class'), oid='c.oid')} ORDER BY c.relname"
)
_COLUMNS = (
    "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), "
    "a.attgenerated, a.attidentity, CASE WHEN a.attcollation <> t.typcollation THEN co.collname END "
    "FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid "
    "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
    "LEFT JOIN pg_collation co ON co.oid = a.attcollation "
    "WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"
)
_CONSTRAINTS = (
    "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s AND contype <> 'n' "
    "ORDER BY conname"
)
_INDEXES = (
    "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
    "WHERE i.indrelid = %s AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid "
    "AND k.conrelid = i.indrelid AND k.contype IN ('p', 'u', 'x')) ORDER BY c.relname"
)
_TRIGGERS = (
    "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = %s AND NOT tgisinternal ORDER BY tgname"
)
_POLICIES = (
    "SELECT p.polname, p.polpermissive, p.polcmd, "
    "ARRAY(SELECT CASE WHEN r = 0 THEN 'PUBLIC' WHEN r = (SELECT oid FROM pg_roles WHERE rolname = current_user) "
    "THEN 'CURRENT_USER' ELSE r::regrole::text END FROM unnest(p.polroles) AS r ORDER BY 1), "
    "pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid) "
    "FROM pg_policy p WHERE p.polrelid = %s ORDER BY p.polname"
)
_SEQUENCES = (
    "SELECT c.relname, format_type(s.seqtypid, NULL), "
    "(SELECT o.relname || '.' || a.attname FROM pg_depend d JOIN pg_class o ON o.oid = d.refobjid "
    " JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid "
    " WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')) "
    "FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid "
    f"WHERE {_IN_SCHEMA.format(namespace='c.relnamespace')} "
    f"AND {_NOT_EXTENSION.format(catalog=repr('pg_class'), oid='c.oid')} ORDER BY c.relname"
)
_VIEWS = (
    "SELECT c.relname, c.relkind, pg_get_viewdef(c.oid) FROM pg_class c WHERE c.relkind IN ('v', 'm') "
    f"AND {_IN_SCHEMA.format(namespace='c.relnamespace')} "
    f"AND {_NOT_EXTENSION.format(catalog=repr('pg_class'), oid='c.oid')} ORDER BY c.relname"
)
_FUNCTIONS = (
    "SELECT p.oid::regprocedure::text, CASE WHEN p.prokind = 'a' THEN "
    "(SELECT 'AGGREGATE (SFUNC = ' || a.aggtransfn::regproc::text || ', STYPE = ' || format_type(a.aggtranstype, NULL) "
    " || coalesce(', FINALFUNC = ' || nullif(a.aggfinalfn, 0)::regproc::text, '') "
    " || coalesce(', COMBINEFUNC = ' || nullif(a.aggcombinefn, 0)::regproc::text, '') "
    " || coalesce(', INITCOND = ' || quote_literal(a.agginitval), '') || ')' "
    " FROM pg_aggregate a WHERE a.aggfnoid = p.oid) ELSE pg_get_functiondef(p.oid) END FROM pg_proc p "
    f"WHERE {_IN_SCHEMA.format(namespace='p.pronamespace')} "
    f"AND {_NOT_EXTENSION.format(catalog=repr('pg_proc'), oid='p.oid')} ORDER BY 1"
)
_EXTENSIONS = "SELECT extname FROM pg_extension ORDER BY extname"
_COMMANDS = {"r": "SELECT", "a": "INSERT", "w": "UPDATE", "d": "DELETE", "*": "ALL"}


def _column(name: str, kind: str, notnull: bool, default: str | None, generated: str, identity: str,
            collation: str | None) -> str:
    parts = [f"  column {name}", kind]
    if collation:
        parts.append(f'COLLATE "{collation}"')
    if notnull:
        parts.append("NOT NULL")
    if generated == "s":
        parts.append(f"GENERATED ALWAYS AS ({default}) STORED")
    elif default is not None:
        parts.append(f"DEFAULT {default}")
    if identity:
        parts.append("GENERATED " + ("ALWAYS" if identity == "a" else "BY DEFAULT") + " AS IDENTITY")
    return " ".join(parts)


def _table(conn: psycopg.Connection[Any], oid: int, name: str, rls: bool, forced: bool, persistence: str) -> list[str]:
    flags = [flag for flag, on in (("unlogged", persistence == "u"), ("row level security", rls),
                                   ("forced", forced)) if on]
    lines = [f"table {name}" + (f" ({', '.join(flags)})" if flags else "")]
    lines += [_column(*row) for row in conn.execute(_COLUMNS, (oid,))]
    lines += [f"  constraint {constraint}: {definition}"
              for constraint, definition in conn.execute(_CONSTRAINTS, (oid,))]
    lines += [f"  index {definition}" for (definition,) in conn.execute(_INDEXES, (oid,))]
    lines += [f"  trigger {definition}" for (definition,) in conn.execute(_TRIGGERS, (oid,))]
    for policy, permissive, command, roles, using, check in conn.execute(_POLICIES, (oid,)):
        line = (f"  policy {policy} {'permissive' if permissive else 'restrictive'} "
                f"for {_COMMANDS[command]} to {', '.join(roles)}")
        line += f" using ({using})" if using is not None else ""
        line += f" with check ({check})" if check is not None else ""
        lines.append(line)
    return lines


def describe(conn: psycopg.Connection[Any]) -> str:
    """The current schema of ``conn``'s database as text, sorted; read in one transaction."""
    lines: list[str] = []
    with conn.transaction(force_rollback=True):
        lines += [f"extension {name}" for (name,) in conn.execute(_EXTENSIONS)]
        for oid, name, rls, forced, persistence in conn.execute(_TABLES).fetchall():
            lines += _table(conn, oid, name, rls, forced, persistence)
        for name, kind, owner in conn.execute(_SEQUENCES):
            lines.append(f"sequence {name} {kind}" + (f" owned by {owner}" if owner else ""))
        for name, kind, definition in conn.execute(_VIEWS):
            lines.append(f"{'materialized view' if kind == 'm' else 'view'} {name}: {' '.join(definition.split())}")
        for signature, definition in conn.execute(_FUNCTIONS):
            lines.append(f"function {signature}:")
            lines += ["  " + line.rstrip() if line.strip() else "" for line in definition.strip().splitlines()]
    return "\n".join(lines) + "\n"
