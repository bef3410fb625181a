"""The schema of a SQLite database as normalised, sorted text: what the migrations add
up to, in one file a reader can take in (``migrations/schema.txt``, checked by a test).

Per table, in name order: its columns in their declared order (an ``INSERT`` without a
column list depends on it), primary key, foreign keys, ``CHECK``s, its indexes and its
triggers; then the virtual (FTS5) tables, whose shadow tables follow from their
definition and are left out. Statement text is SQLite's own, with white space outside
quotes collapsed, so re-indenting a migration does not change the dump but any change
to what it defines does. TEMP objects (the connection's cache triggers) are not part of
the file's schema.
"""

from __future__ import annotations

import re
import sqlite3

_QUOTED = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`[^`]*`|\[[^\]]*\]")


def normalised(statement: str) -> str:
    """``statement`` with runs of white space outside quotes made one space, and none
    just inside parentheses or before a comma."""
    parts: list[str] = []
    last = 0
    for quoted in _QUOTED.finditer(statement):
        parts += [_squeeze(statement[last:quoted.start()]), quoted.group()]
        last = quoted.end()
    parts.append(_squeeze(statement[last:]))
    return "".join(parts).strip()


def _squeeze(text: str) -> str:
    text = re.sub(r"\s+", " ", text)
    return re.sub(r"\( ", "(", re.sub(r" (?=[),])", "", text))


def _checks(statement: str) -> list[str]:
    """Every ``CHECK (...)`` of a ``CREATE TABLE`` (column and table constraints alike)."""
    found: list[str] = []
    masked = _QUOTED.sub(lambda m: "_" * len(m.group()), statement)
    for match in re.finditer(r"\bCHECK\s*\(", masked, re.IGNORECASE):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(masked)):
            depth += {"(": 1, ")": -1}.get(masked[end], 0)
            if depth == 0:
                break
        found.append("check " + normalised(statement[match.end() - 1:end + 1]))
    return sorted(found)


def _quoted_name(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"


def _table(conn: sqlite3.Connection, name: str, statement: str, without_rowid: bool, strict: bool) -> list[str]:
    flags = [flag for flag, on in (("without rowid", without_rowid), ("strict", strict)) if on]
    lines = [f"table {name}" + (f" ({', '.join(flags)})" if flags else "")]
    key: list[tuple[int, str]] = []
    quoted = _quoted_name(name)
    for _, column, kind, notnull, default, pk, hidden in conn.execute(f"PRAGMA table_xinfo({quoted})"):
        parts = [f"  column {column}", kind or "(no type)"]
        if notnull:
            parts.append("NOT NULL")
        if default is not None:
            parts.append(f"DEFAULT {default}")
        if hidden in (2, 3):
            parts.append("GENERATED " + ("STORED" if hidden == 3 else "VIRTUAL"))
        lines.append(" ".join(parts))
        if pk:
            key.append((pk, column))
    if key:
        autoincrement = re.search(r"\bAUTOINCREMENT\b", statement, re.IGNORECASE) is not None
        lines.append(f"  primary key ({', '.join(c for _, c in sorted(key))})"
                     + (" autoincrement" if autoincrement else ""))
    foreign: dict[int, list[tuple[str, str, str, str, str]]] = {}
    for fk_id, _, target, source, dest, on_update, on_delete, _ in conn.execute(
            f"PRAGMA foreign_key_list({quoted})"):
        foreign.setdefault(fk_id, []).append((target, source, dest or "", on_update, on_delete))
    for refs in sorted(foreign.values()):
        target, _, _, on_update, on_delete = refs[0]
        lines.append(f"  foreign key ({', '.join(r[1] for r in refs)}) references {target} "
                     f"({', '.join(r[2] for r in refs)}) on update {on_update.lower()} on delete {on_delete.lower()}")
    lines += ["  " + check for check in _checks(statement)]
    for _, index, _unique, origin, _partial in sorted(conn.execute(f"PRAGMA index_list({quoted})"), key=lambda r: r[1]):
        row = conn.execute("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?", (index,)).fetchone()
        if row and row[0]:
            lines.append(f"  index {normalised(row[0])}")
        elif origin == "u":  # a UNIQUE constraint's (a PRIMARY KEY's is the line above)
            columns = [r[2] for r in conn.execute(f"PRAGMA index_info({_quoted_name(index)})")]
            lines.append(f"  unique ({', '.join(columns)})")
    for trigger, text in conn.execute(
            "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? ORDER BY name", (name,)):
        lines.append(f"  trigger {trigger}: {normalised(text)}")
    return lines


def describe(conn: sqlite3.Connection) -> str:
    """The schema of ``conn``'s main database as text, one object a line, sorted."""
    tables = conn.execute(
        "SELECT l.name, l.type, l.wr, l.strict, s.sql FROM pragma_table_list AS l "
        "JOIN sqlite_schema AS s ON s.name = l.name AND s.type = 'table' "
        "WHERE l.schema = 'main' AND l.type IN ('table', 'virtual') AND l.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
        "ORDER BY l.type, l.name"
    ).fetchall()
    lines: list[str] = []
    for name, kind, without_rowid, strict, statement in tables:
        if kind == "virtual":
            lines.append(f"virtual table {name}: {normalised(statement)}")
        else:
            lines += _table(conn, name, statement, bool(without_rowid), bool(strict))
    for name, statement in conn.execute("SELECT name, sql FROM sqlite_schema WHERE type = 'view' ORDER BY name"):
        lines.append(f"view {name}: {normalised(statement)}")
    return "\n".join(lines) + "\n"
