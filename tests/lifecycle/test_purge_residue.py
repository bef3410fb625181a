"""Purge and residue on both backends: what is past its deadline leaves every table and
index (and, on SQLite, the database and WAL bytes), proved with unique markers; the audit
log records it without content; the erasure key stays outside the database."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from sgam import DeniedError, Memory, ValidationError

from ..conftest import HashingEmbedder, ManualClock, Store

T = "acme"
MARKERS = ("ZqPurgeEpisode41", "ZqPurgeWrite42", "ZqPurgeDerived43", "ZqKeepText44")


def _seed(memory: Memory) -> None:
    memory.retention(T, "chat", "PT1H")
    memory.retention(T, "transcripts", "PT1H", on_expiry="keep_facts")
    memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", f"The code word is {MARKERS[0]}.", retention="chat",
                       speaker="ann")
    memory.write(T, "ann", "code_word", MARKERS[0], "2026-06-01T00:00:00Z", "e1")
    memory.add_episode(T, "e2", "2026-06-01T00:00:00Z", "Ann changed a setting.")
    memory.write(T, "ann", "setting", MARKERS[1], "2026-06-01T00:00:00Z", "e2", expires_at="2026-06-01T00:30:00Z")
    memory.add_episode(T, "s1", "2026-06-01T00:00:00Z", f"Summary: {MARKERS[2]}.", derived_from=["e1"])
    memory.add_episode(T, "t1", "2026-06-01T00:00:00Z", f"Transcript {MARKERS[3]}: Ann likes tea.",
                       retention="transcripts")
    memory.write(T, "ann", "drink", "tea", "2026-06-01T00:00:00Z", "t1")


def test_purge_leaves_no_residue(store: Store, clock: ManualClock) -> None:
    clock.set("2026-06-01T00:00:00+00:00")
    with Memory(store.url, clock=clock, embedder=HashingEmbedder()) as memory:
        _seed(memory)
        for marker in MARKERS:
            assert memory.residue(T, marker).found, marker
        clock.advance(7200)
        result = memory.purge()
        assert (result.tenants, result.operations_removed, result.episodes_removed, result.texts_dropped) == (
            1, 2, 2, 1)
        for marker in MARKERS:
            assert not memory.residue(T, marker).found, (marker, memory.residue(T, marker).places)
        assert memory.get(T, "ann", "drink").source == "t1"  # type: ignore[union-attr]
        assert memory.purge().tenants == 0  # nothing is due any more: a second purge has no work
        actions = sorted(entry.action for entry in memory.audit(T))
        assert actions == ["expire_episode", "expire_text", "expire_writes"]
        for entry in memory.audit(T):
            assert entry.call == "purge"
            assert all(marker not in repr(entry) for marker in MARKERS)


def test_reads_settle_before_any_purge(store: Store, clock: ManualClock) -> None:
    clock.set("2026-06-01T00:00:00+00:00")
    with Memory(store.url, clock=clock) as memory:
        _seed(memory)
        clock.advance(7200)
        assert memory.get(T, "ann", "code_word") is None  # this read settles the tenant
        assert [entry.call for entry in memory.audit(T)] == ["get", "get", "get"]
        assert memory.purge().tenants == 0
        for marker in MARKERS:
            assert not memory.residue(T, marker).found, marker


def test_bad_lifecycle_input_changes_nothing(store: Store, clock: ManualClock) -> None:
    clock.set("2026-06-01T00:00:00+00:00")
    with Memory(store.url, clock=clock) as memory:
        _seed(memory)
        before = (memory.retention_classes(T), memory.consents(T), memory.audit(T), memory.query(T))
        for call in (
            lambda: memory.retention(T, "chat", "P1M"),
            lambda: memory.retention(T, "chat", "PT1H", on_expiry="shred"),
            lambda: memory.retention(T, "", "PT1H"),
            lambda: memory.consent(T, "ann", "no"),  # type: ignore[arg-type]
            lambda: memory.consent(T, "ann", False, purpose=""),
            lambda: memory.write(T, "ann", "x", 1, "2026-06-01T00:00:00Z", "e2", expires_at="2026-06-01T00:00:00"),
            lambda: memory.write(T, "ann", "x", 1, "2026-06-01T00:00:00Z", "e2", expires_at="2026-05-01T00:00:00Z"),
            lambda: memory.add_episode(T, "e9", "2026-06-01T00:00:00Z", "x", derived_from="e1"),
            lambda: memory.residue(T, ""),
        ):
            with pytest.raises(ValidationError):
                call()
        assert (memory.retention_classes(T), memory.consents(T), memory.audit(T), memory.query(T)) == before
        memory.consent(T, "ann", False)
        with pytest.raises(DeniedError):
            memory.write(T, "ann", "x", 1, "2026-06-01T00:00:00Z", "e2")


def test_erasure_key_lives_beside_the_database_not_in_it(tmp_path: Path, clock: ManualClock) -> None:
    db = tmp_path / "keyed.db"
    with Memory(f"sqlite:///{db}", clock=clock) as memory:
        memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", "to be erased")
        memory.forget_episode(T, "e1")
        key = Path(f"{db}.key")
        assert stat.S_IMODE(key.stat().st_mode) == 0o600
        secret = key.read_text().strip()
        assert secret.encode() not in db.read_bytes()
        target = memory.audit(T)[0].target
        with pytest.raises(Exception, match="reserved"):
            memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", "to be erased")
    import hashlib

    assert target != hashlib.sha256(f"{T}\x1fe1".encode()).hexdigest()
    key.unlink()  # a lost key: tombstones can no longer be matched (docs/lifecycle.md)
    with Memory(f"sqlite:///{db}", clock=clock) as memory:
        memory.add_episode(T, "e1", "2026-06-01T00:00:00Z", "to be erased")
