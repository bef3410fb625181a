"""A file that is truncated, altered, of an unknown version or with a record that fails
validation, an import into a tenant that holds data or whose tombstones refuse an
episode, a row the database refuses half way and a SIGKILL in the middle: each is
refused with a clear error, and the destination holds nothing of the tenant after it.
Run in both directions (SQLite → PostgreSQL and PostgreSQL → SQLite)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sgam import ConflictError, Memory, SgamError, ValidationError
from sgam.store._portable import PORTABLE_TABLES
from tests.conftest import BACKENDS, ManualClock, PostgresUrls, Store

TENANT = "acme"
KEY = "portability-test-key-" + "k" * 20


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", KEY)


@pytest.fixture
def source_url(store: Store, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The other backend than the destination's (SQLite when PostgreSQL is not tested)."""
    if store.backend == "sqlite" and "postgres" in BACKENDS:
        urls: PostgresUrls = request.getfixturevalue("postgres")
        return urls.app
    return f"sqlite:///{tmp_path / 'source.db'}"


def fill(memory: Memory, episodes: int = 3) -> None:
    memory.add_episodes(TENANT, [{"id": f"e{n}", "at": "2026-06-01T00:00:00Z", "text": f"note {n}"}
                                 for n in range(episodes)])
    memory.write(TENANT, "ann", "city", "Paris", "2026-06-01T00:00:00Z", "e0")
    memory.write(TENANT, "ann", "city", "Rome", "2026-06-03T00:00:00Z", "e1")
    memory.alias(TENANT, "annie", "ann")
    memory.consent(TENANT, "ann", False)
    memory.forget_episode(TENANT, f"e{episodes - 1}")


@pytest.fixture
def exported(source_url: str, tmp_path: Path) -> Path:
    path = tmp_path / "acme.jsonl"
    with Memory(source_url, clock=ManualClock()) as source:
        fill(source)
        source.export_tenant(TENANT, path)
    return path


@pytest.fixture
def destination(store: Store) -> Iterator[Memory]:
    with Memory(store.url, clock=ManualClock()) as memory:
        yield memory


def held(memory: Memory, tenant: str = TENANT) -> list[str]:
    """The tables in which ``tenant`` holds a row."""
    with memory.backend.read(tenant) as reader:
        return reader.portable().tables_holding_rows(PORTABLE_TABLES)


def rewritten(path: Path, change: Callable[[list[dict[str, Any]]], None]) -> Path:
    """``path`` with its records changed by ``change`` and a closing digest that matches."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:-1]]
    change(lines)
    texts = [json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines]
    digest = hashlib.sha256("".join(texts).encode()).hexdigest()
    out = path.with_name("changed.jsonl")
    out.write_text("".join(texts) + json.dumps({"end": True, "records": len(texts), "sha256": digest}) + "\n",
                   encoding="utf-8")
    return out


def first_of(lines: list[dict[str, Any]], table: str) -> dict[str, Any]:
    return next(line["row"] for line in lines if line.get("table") == table)


def test_the_export_imports_whole(exported: Path, destination: Memory) -> None:
    destination.import_tenant(TENANT, exported)
    assert destination.get(TENANT, "annie", "city", at="2026-06-02T00:00:00Z") is None  # consent revoked
    destination.consent(TENANT, "ann", True)
    found = destination.get(TENANT, "annie", "city", at="2026-06-02T00:00:00Z")
    assert found is not None and found.value == "Paris"


def test_a_truncated_file_is_refused(exported: Path, destination: Memory, tmp_path: Path) -> None:
    text = exported.read_text(encoding="utf-8")
    for cut in (len(text) // 2, text.rindex("\n", 0, len(text) - 1) + 1):
        truncated = tmp_path / "truncated.jsonl"
        truncated.write_text(text[:cut], encoding="utf-8")
        with pytest.raises(ValidationError, match="truncated|not JSON"):
            destination.import_tenant(TENANT, truncated)
        assert held(destination) == []


def test_an_altered_file_is_refused(exported: Path, destination: Memory, tmp_path: Path) -> None:
    altered = tmp_path / "altered.jsonl"
    altered.write_text(exported.read_text(encoding="utf-8").replace('"Rome"', '"Oslo"'), encoding="utf-8")
    with pytest.raises(ValidationError, match="sha256") as refused:
        destination.import_tenant(TENANT, altered)
    assert "altered" in str(refused.value)
    assert held(destination) == []


def test_an_unknown_format_version_is_refused(exported: Path, destination: Memory) -> None:
    def newer(lines: list[dict[str, Any]]) -> None:
        lines[0]["version"] = 2

    with pytest.raises(ValidationError, match=r"line 1\.version.*format version") as refused:
        destination.import_tenant(TENANT, rewritten(exported, newer))
    assert refused.value.field == "line 1.version"
    assert held(destination) == []


@pytest.mark.parametrize(("table", "column", "value", "message"), [
    ("operations", "recorded_at", "yesterday", "instant"),
    ("consents", "granted", "no", "true or false"),
    ("episodes", "text", ["a", "list"], "text or a number"),
])
def test_a_record_failing_validation_is_refused(
    exported: Path, destination: Memory, table: str, column: str, value: Any, message: str,
) -> None:
    def broken(lines: list[dict[str, Any]]) -> None:
        first_of(lines, table)[column] = value

    with pytest.raises(ValidationError, match=message) as refused:
        destination.import_tenant(TENANT, rewritten(exported, broken))
    assert refused.value.field.endswith(f".row.{column}")
    assert held(destination) == []


def test_a_row_the_database_refuses_half_way_leaves_nothing(exported: Path, destination: Memory) -> None:
    def orphan(lines: list[dict[str, Any]]) -> None:
        first_of(lines, "operations")["source"] = "an episode nobody recorded"

    with pytest.raises(SgamError):
        destination.import_tenant(TENANT, rewritten(exported, orphan))
    assert held(destination) == []
    assert destination.episodes(TENANT) == []


def test_a_tenant_that_holds_data_is_a_conflict(exported: Path, destination: Memory) -> None:
    destination.add_episode(TENANT, "mine", "2026-01-01T00:00:00Z", "already here")
    with pytest.raises(ConflictError, match="already holds data"):
        destination.import_tenant(TENANT, exported)
    assert [episode.id for episode in destination.episodes(TENANT)] == ["mine"]
    assert held(destination) == ["episodes"]


def test_an_episode_the_destination_erased_is_refused(exported: Path, destination: Memory) -> None:
    destination.add_episode(TENANT, "e1", "2026-01-01T00:00:00Z", "erased here")
    destination.forget_episode(TENANT, "e1")
    before = held(destination)
    with pytest.raises(ConflictError, match="'e1' was erased"):
        destination.import_tenant(TENANT, exported)
    assert held(destination) == before
    assert "episodes" not in before


def test_tombstones_under_another_key_or_tenant_are_refused(exported: Path, destination: Memory) -> None:
    with pytest.raises(ValidationError, match="erasure key") as refused:
        destination.import_tenant("other", exported)
    assert refused.value.field == "erasure_key_check"
    assert held(destination, "other") == []


def test_an_import_killed_half_way_leaves_nothing(source_url: str, store: Store, tmp_path: Path) -> None:
    path = tmp_path / "large.jsonl"
    with Memory(source_url, clock=ManualClock()) as source:
        fill(source, episodes=1500)
        source.export_tenant(TENANT, path)
        readable = len(source.episodes(TENANT, limit=2000))
    killed = subprocess.run([sys.executable, "-c", KILLED_IMPORT, store.url, str(path)], timeout=120, check=False)
    assert killed.returncode == -9, "the import was killed by SIGKILL while it applied the file"
    with Memory(store.url, clock=ManualClock()) as destination:
        assert held(destination) == []
        destination.import_tenant(TENANT, path)  # and the store takes it whole afterwards
        assert len(destination.episodes(TENANT, limit=2000)) == readable


KILLED_IMPORT = f"""
import os, signal, sys
os.environ["SGAM_ERASURE_KEY"] = {KEY!r}
from sgam import Memory

def progress(done, total):
    if 0 < done < total:
        os.kill(os.getpid(), signal.SIGKILL)

with Memory(sys.argv[1]) as memory:
    memory.import_tenant("acme", sys.argv[2], progress=progress)
"""


@pytest.mark.parametrize("counted", [1, 3])
def test_operations_the_header_miscounts_are_refused(exported: Path, destination: Memory, counted: int) -> None:
    """The operations' numbers are drawn at once, as many as the header counts (two here)."""
    def miscounted(lines: list[dict[str, Any]]) -> None:
        lines[0]["counts"]["operations"] = counted

    with pytest.raises(ValidationError, match="counts") as refused:
        destination.import_tenant(TENANT, rewritten(exported, miscounted))
    assert "operations" in refused.value.field
    assert held(destination) == []
