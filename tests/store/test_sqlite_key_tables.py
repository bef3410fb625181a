"""SQLite's per-key tables behind ``query``'s filters: filled on
upgrade, kept by triggers, emptied with what they name, and the plans that use them."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sgam import Memory
from sgam.store._records import QueryFilter

T1 = datetime(2025, 1, 1, tzinfo=UTC)
T2 = datetime(2025, 3, 1, tzinfo=UTC)


def _fill(memory: Memory) -> None:
    memory.add_episode("acme", "e1", T1, "Ann lives in Paris and eats vegan food")
    memory.declare("acme", "diet", "string", memory_type="preference")
    memory.write("acme", "ann", "city", "Paris", T1, "e1")
    memory.write("acme", "ann", "city", "Rome", T2, "e1", memory_type="profile")
    memory.write("acme", "ann", "diet", "vegan", T1, "e1")
    memory.write("acme", "bob", "city", "Oslo", T1, "e1", purpose="ads")
    memory.retract("acme", "bob", "city", T2, "e1", purpose="ads")


def _key_types(path: Path) -> list[tuple[str, ...]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT tenant, memory_type, subject, attribute FROM ledger_key_types "
                            "ORDER BY 1, 2, 3, 4").fetchall()


def _every_type_of_every_version(path: Path) -> list[tuple[str, ...]]:
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT DISTINCT tenant, memory_type, subject, attribute FROM assertions "
                            "ORDER BY 1, 2, 3, 4").fetchall()


def _answers(memory: Memory) -> list[object]:
    return [list(memory.query("acme", **narrow)) for narrow in (  # type: ignore[arg-type]
        {"attribute": "city"}, {"memory_type": "profile"}, {"memory_type": "fact"},
        {"memory_type": "preference", "all_times": True}, {"attribute": "city", "purpose": "ads", "all_times": True},
    )]


def test_the_triggers_keep_every_type_a_version_has(tmp_path: Path) -> None:
    path = tmp_path / "sgam.db"
    with Memory(f"sqlite:///{path}") as memory:
        _fill(memory)
        assert _key_types(path) == _every_type_of_every_version(path)
        assert {row[1] for row in _key_types(path) if row[2:] == ("ann", "city")} == {"fact", "profile"}
        memory.forget_episode("acme", "e1")
        assert _key_types(path) == [] and _every_type_of_every_version(path) == []


def test_forgetting_a_subject_leaves_no_key_type_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "sgam.db"
    with Memory(f"sqlite:///{path}") as memory:
        _fill(memory)
        memory.forget_subject("acme", "ann")
        assert [row for row in _key_types(path) if row[2] == "ann"] == []
        assert _key_types(path) == _every_type_of_every_version(path)
        assert _answers(memory)[1] == []


FILTERS = [
    QueryFilter(attribute="city", at=10**18),
    QueryFilter(attribute="city", known_at=10**18, after=("ann", "city", 0)),
    QueryFilter(attribute="city", purpose="ads"),
    QueryFilter(memory_type="profile", at=10**18, after=("ann", "city", 0)),
    QueryFilter(memory_type="profile", attribute="city", known_at=10**18),
]


@pytest.mark.parametrize("flt", FILTERS, ids=lambda f: f"{f.attribute}-{f.memory_type}-{f.known_at}-{f.after}")
def test_a_filter_without_subject_seeks_its_keys_then_each_keys_versions(tmp_path: Path, flt: QueryFilter) -> None:
    """Never a scan of the versions, and the versions sought by key (not by the page's
    lower bound on subjects, which SQLite would otherwise carry over from the key)."""
    with Memory(f"sqlite:///{tmp_path / 'sgam.db'}") as memory:
        _fill(memory)
        statements: list[str] = []
        with memory.ledger.backend.read("acme") as reader:
            conn = reader._conn  # type: ignore[attr-defined]
            conn.set_trace_callback(statements.append)
            reader.query(flt)
            conn.set_trace_callback(None)
            plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statements[-1]}")]
    assert not [step for step in plan if step.startswith("SCAN")], plan
    keys = "SEARCH t USING PRIMARY KEY" if flt.memory_type else "SEARCH k USING COVERING INDEX ledger_keys_by_attribute"
    assert plan[0].startswith(keys), plan
    versions = [step for step in plan if step.startswith("SEARCH a ")]
    assert versions and all("subject=? AND attribute=?" in step for step in versions), plan
