"""An import lists the tenant's ledger keys (and, on PostgreSQL, their search terms) as
the writes it carries would have: every key once, found by recall, and the writes after
it list their own keys again."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgam import Memory
from tests.conftest import ManualClock, Store

TENANT = "acme"
FACTS = 1300
"""More operations than one batch of an import holds."""


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


def _keys(store: Store) -> int:
    return store.count(f"SELECT count(*) FROM ledger_keys WHERE tenant = '{TENANT}'")


def _operation_keys(store: Store) -> int:
    return store.count(f"SELECT count(*) FROM (SELECT DISTINCT subject, attribute FROM operations "
                       f"WHERE tenant = '{TENANT}') AS k")


def _recalled(memory: Memory, question: str) -> list[tuple[str, str]]:
    items = memory.recall(TENANT, question, budget=2000).items
    return [(item.subject, item.attribute) for item in items if item.kind == "fact"]


def test_an_import_lists_every_key_once_and_later_writes_list_theirs(store: Store, tmp_path: Path) -> None:
    exported = tmp_path / "tenant.jsonl"
    with Memory(f"sqlite:///{tmp_path / 'source.db'}", clock=ManualClock()) as source:
        source.add_episodes(TENANT, [{"id": "e1", "at": "2026-06-01T00:00:00Z", "text": "many notes"}])
        source.write_many(TENANT, [{"subject": f"s{n % 400}", "attribute": f"note_{n % 7}", "value": n,
                                    "valid_from": f"2026-06-01T00:00:{n % 60:02d}Z", "source": "e1"}
                                   for n in range(FACTS)])
        source.write(TENANT, "ann", "passport_deadline", "2026-07-15", "2026-06-02T00:00:00Z", "e1")
        source.export_tenant(TENANT, exported)
    with Memory(store.url, clock=ManualClock()) as destination:
        destination.import_tenant(TENANT, exported)
        keys = _operation_keys(store)
        assert keys > 400 and _keys(store) == keys
        if store.backend == "postgres":
            terms = store.count("SELECT count(*) FROM ledger_keys k, unnest(tsvector_to_array(k.search))")
            assert terms > keys and store.count("SELECT count(*) FROM ledger_key_terms") == terms
        assert ("ann", "passport_deadline") in _recalled(destination, "When is Ann's passport deadline?")
        destination.write(TENANT, "bob", "visa_expiry", "2027-01-01", "2026-06-03T00:00:00Z", "e1")
        assert _keys(store) == keys + 1
        assert ("bob", "visa_expiry") in _recalled(destination, "When does Bob's visa expire?")
