"""``move``: the destination answers as the source did, the source is erased only when
asked and only after the destination verified, and then ``residue`` finds nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sgam import ConflictError, Memory
from sgam.cli.app import app
from tests.conftest import BACKENDS, ManualClock, PostgresUrls, Store

from .test_bad_input import TENANT, fill, held

SECRET = "Zanzibar lighthouse keeper"


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


@pytest.fixture
def other_url(store: Store, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if store.backend == "sqlite" and "postgres" in BACKENDS:
        urls: PostgresUrls = request.getfixturevalue("postgres")
        return urls.app
    return f"sqlite:///{tmp_path / 'other.db'}"


def _source(url: str) -> Memory:
    memory = Memory(url, clock=ManualClock())
    fill(memory)
    memory.add_episode(TENANT, "secret", "2026-06-02T00:00:00Z", SECRET)
    memory.write(TENANT, "bob", "job", SECRET, "2026-06-02T00:00:00Z", "secret")
    memory.add_episode("neighbour", "n1", "2026-06-02T00:00:00Z", "a neighbour stays")
    return memory


def test_a_move_with_erase_source_leaves_no_residue(store: Store, other_url: str) -> None:
    with _source(store.url) as source, Memory(other_url, clock=ManualClock()) as destination:
        before = source.history(TENANT, "bob", "job")
        moved = source.move_tenant(TENANT, destination, erase_source=True)
        assert moved.verified and moved.source_erased
        after = destination.history(TENANT, "bob", "job")
        assert [(a.value, a.valid_from, a.recorded_at) for a in after] == [
            (b.value, b.valid_from, b.recorded_at) for b in before]
        assert held(source) == []
        assert source.episodes("neighbour")[0].text == "a neighbour stays"
        assert not source.residue(TENANT, SECRET).found
        assert destination.residue(TENANT, SECRET).found


def test_a_failed_move_leaves_the_source_as_it_was(store: Store, other_url: str) -> None:
    with _source(store.url) as source, Memory(other_url, clock=ManualClock()) as destination:
        destination.add_episode(TENANT, "theirs", "2026-01-01T00:00:00Z", "the destination's own")
        tables = held(source)
        with pytest.raises(ConflictError):
            source.move_tenant(TENANT, destination, erase_source=True)
        assert held(source) == tables
        assert [e.id for e in destination.episodes(TENANT)] == ["theirs"]


def test_sgam_move_on_the_command_line(store: Store, other_url: str) -> None:
    with _source(store.url):
        pass
    runner = CliRunner()
    result = runner.invoke(app, ["move", "-t", TENANT, "--to", other_url, "--erase-source", "--db", store.url,
                                 "--json"])
    assert result.exit_code == 0, result.output
    assert '"source_erased": true' in result.output
    residue = runner.invoke(app, ["residue", "-t", TENANT, SECRET, "--db", store.url])
    assert residue.exit_code == 0, residue.output
