"""An import applies its rows in batches of any size: one batch checks more episode ids
against the tombstones than one statement binds, and its inserts, the draws of
operation numbers and those checks follow each other on the same connection."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam import Memory
from sgam.portability import importer
from tests.conftest import ManualClock, Store

from .reads import records

TENANT = "acme"
EPISODES = 2600


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


@pytest.mark.parametrize("tombstoned", [False, True], ids=["fresh", "with-tombstones"])
@pytest.mark.parametrize("batch", [1000, 2500])
def test_an_import_in_large_batches_carries_every_row(store: Store, tmp_path: Path, batch: int, tombstoned: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``tombstoned``: the destination erased an episode of the tenant before, so every
    batch of episodes is checked against its tombstones between the inserts."""
    monkeypatch.setattr(importer, "BATCH", batch)
    exported, again = tmp_path / "first.jsonl", tmp_path / "again.jsonl"
    with Memory(f"sqlite:///{tmp_path / 'source.db'}", clock=ManualClock()) as source:
        source.add_episodes(TENANT, [{"id": f"e{n}", "at": "2026-06-01T00:00:00Z", "text": f"note {n}"}
                                     for n in range(EPISODES)])
        source.write_many(TENANT, [{"subject": f"s{n}", "attribute": "n", "value": n,
                                    "valid_from": "2026-06-01T00:00:00Z", "source": f"e{n}"}
                                   for n in range(EPISODES)])
        source.forget_episode(TENANT, "e7")
        source.export_tenant(TENANT, exported)
    with Memory(store.url, clock=ManualClock()) as destination:
        if tombstoned:
            destination.add_episodes(TENANT, [{"id": "gone", "at": "2026-05-01T00:00:00Z", "text": "erased"}])
            destination.forget_episode(TENANT, "gone")
        destination.import_tenant(TENANT, exported)
        destination.export_tenant(TENANT, again)
    if tombstoned:  # the destination's own tombstone and audit record of its erasure come along
        assert set(records(exported)) < set(records(again))
        assert len(records(again)) == len(records(exported)) + 2
    else:
        assert records(again) == records(exported)
    assert len(records(exported)) > 2 * EPISODES
