"""Portable SQL binds only ``?``: the one placeholder style every backend's dialect
layer understands (PostgreSQL's turns each ``?`` into ``%s``) and every Python binds
from a sequence. Numbered (``?1``) or named (``:name``) placeholders bound from a
sequence are deprecated in Python 3.12 and refused from 3.14, and a ``?`` inside a
string literal would become a bound parameter on PostgreSQL.

Two nets: every string fragment in the source of the portable statements and of the
SQLite backend (statements built at run time are made of them), and every statement
the SQLite backend actually runs under a workload that touches each of its rooms."""

from __future__ import annotations

import ast
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sgam import Memory
from sgam.langgraph import SgamStore

STORE = Path(__file__).resolve().parents[2] / "src" / "sgam" / "store"
SOURCES = sorted([*(STORE / "_sql").rglob("*.py"), *(STORE / "sqlite").rglob("*.py")])

_LITERAL = re.compile(r"'(?:[^']|'')*'")
_COMMENT = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)
_LITERAL_OR_COMMENT = re.compile(f"{_LITERAL.pattern}|{_COMMENT.pattern}", re.DOTALL)
_NUMBERED = re.compile(r"\?\d")
_NAMED = re.compile(r"(?<![\w:])[:@$][A-Za-z_]\w*")
_KEYWORD = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|WHERE|VALUES|CREATE|DROP|ALTER|PRAGMA)\b")


def problems(sql: str, *, whole: bool) -> list[str]:
    """What is not portable in ``sql``. A fragment of a statement (``whole`` false) may
    open a string literal that another fragment closes, so only a whole statement is
    checked for ``?`` inside literals."""
    found = []
    literals = [m.group() for m in _LITERAL_OR_COMMENT.finditer(sql) if m.group().startswith("'")]
    outside = _LITERAL_OR_COMMENT.sub(lambda m: "''" if m.group().startswith("'") else " ", sql)
    if numbered := _NUMBERED.search(outside):
        found.append(f"numbered placeholder {numbered.group()!r}")
    if named := _NAMED.search(outside):
        found.append(f"named placeholder {named.group()!r}")
    if whole:
        if "'" in outside.replace("''", ""):
            found.append("an unbalanced quote")
        found.extend(f"'?' inside the literal {lit}" for lit in literals if "?" in lit)
    return found


def _docstrings(tree: ast.Module) -> set[int]:
    """ids of the string nodes that document a module, class or function."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def fragments(path: Path) -> Iterator[tuple[int, str]]:
    """The line and text of every SQL-looking string literal in ``path`` (f-strings in
    their literal parts), docstrings aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    documentation = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documentation:
            text = node.value
            if "?" in text or _KEYWORD.search(text):
                yield node.lineno, text


def test_the_lint_finds_what_it_must() -> None:
    assert problems("SELECT 1 WHERE tenant = ?1", whole=True) == ["numbered placeholder '?1'"]
    assert problems("WHERE tenant = :tenant", whole=False) == ["named placeholder ':tenant'"]
    assert problems("WHERE tenant = @tenant OR t = $t", whole=False) == ["named placeholder '@tenant'"]
    assert problems("SELECT 'why?' WHERE a = ?", whole=True) == ["'?' inside the literal 'why?'"]
    assert problems("SELECT 'it''s' WHERE a = ? AND b = 'x:y'", whole=True) == []
    assert problems("SELECT a::text, datetime('now') FROM t WHERE a = ?", whole=True) == []
    assert problems("-- the class's ttl: why?\nSELECT 1 /* :x */ WHERE a = ?", whole=True) == []


def test_no_fragment_of_a_statement_uses_another_placeholder_style() -> None:
    found = [
        f"{path.relative_to(STORE)}:{line}: {problem}"
        for path in SOURCES
        for line, text in fragments(path)
        for problem in problems(text, whole=False)
    ]
    assert SOURCES and not found, found


class RecordingConnection(sqlite3.Connection):
    """A connection that keeps the text of every statement it runs."""

    statements: set[str]

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        self.statements.add(sql)
        return super().execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
        self.statements.add(sql)
        return super().executemany(sql, *args)


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    statements: set[str] = set()
    opened = sqlite3.connect

    def recording(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = opened(*args, factory=RecordingConnection, **kwargs)
        conn.statements = statements  # type: ignore[attr-defined]
        return conn

    monkeypatch.setattr(sqlite3, "connect", recording)
    return statements


def _workload(memory: Memory) -> None:
    """One call into each room of the backend: episodes, facts, consent, retention,
    search, documents, the LangGraph store, erasure."""
    t = "acme"
    memory.retention(t, "short", "P7D")
    memory.add_episode(t, "e1", "2026-01-01T00:00:00Z", "Mira moved to Oslo.", retention="short")
    memory.add_episode(t, "e2", "2026-02-01T00:00:00Z", "Zed likes tea.")
    memory.write(t, "mira", "city", "Oslo", "2026-01-01T00:00:00Z", "e1")
    memory.write(t, "zed", "drink", "tea", "2026-02-01T00:00:00Z", "e2")
    memory.correct(t, "zed", "drink", "2026-02-01T00:00:00Z", "coffee", "e2")
    assert memory.get(t, "mira", "city") is not None
    memory.history(t, "mira", "city")
    memory.query(t)
    memory.search(t, "Oslo")
    memory.recall(t, "Where does Mira live?")
    memory.consent(t, "zed", False)
    memory.consents(t)
    docs = memory.documents
    docs.write(t, "/memories/notes/a.md", "Mira likes teal.")
    docs.str_replace(t, "/memories/notes/a.md", "teal", "navy")
    docs.rename(t, "/memories/notes", "/memories/kept")
    docs.search(t, "navy")
    docs.history(t, "/memories/kept/a.md")
    docs.delete(t, "/memories/kept/a.md")
    store = SgamStore(memory, tenant=t)
    store.put(("prefs",), "k", {"colour": "teal"}, ttl=60)
    store.get(("prefs",), "k")
    store.search(("prefs",), query="teal")
    memory.forget_subject(t, "mira")
    memory.forget_episode(t, "e2")
    memory.audit(t)
    memory.retention_report(t)
    memory.purge(t)


def test_every_statement_the_sqlite_backend_runs_is_portable(tmp_path: Path, recorded: set[str]) -> None:
    with Memory(f"sqlite:///{tmp_path / 'm.db'}") as memory:
        _workload(memory)
    deadline_probe = [sql for sql in recorded if "min(expires_at)" in sql]
    assert len(recorded) > 50 and deadline_probe
    found = [f"{problem}: {' '.join(sql.split())[:160]}" for sql in recorded for problem in problems(sql, whole=True)]
    assert not found, found
