"""Several processes edit the same documents at once, on both backends: blind inserts,
writes naming the revision they read, and a counter kept through the memory tool. No
update is lost, and every revision is kept in order."""

from __future__ import annotations

import multiprocessing

from sgam import Memory
from tests.documents.concurrent_workers import PATHS, TENANT, work

WORKERS = 4
STEPS = 10


def test_concurrent_editors_lose_no_update(store_url: str) -> None:
    with Memory(store_url) as memory:
        memory.documents.create(TENANT, PATHS["blind"], "end\n")
        memory.documents.create(TENANT, PATHS["checked"], "")
        memory.documents.create(TENANT, PATHS["counter"], "count: 0\n")
    tasks = [(kind, store_url, f"w{i}", STEPS) for i in range(WORKERS) for kind in PATHS]
    with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
        pool.starmap(work, tasks)
    expected = sorted(f"w{w}-{s}" for w in range(WORKERS) for s in range(STEPS))
    with Memory(store_url) as memory:
        docs = {kind: memory.documents.read(TENANT, path) for kind, path in PATHS.items()}
        histories = {kind: memory.documents.history(TENANT, path) for kind, path in PATHS.items()}
    assert sorted(docs["blind"].content.splitlines()[:-1]) == expected
    assert docs["blind"].content.endswith("\nend\n")
    assert sorted(docs["checked"].content.splitlines()) == expected
    assert docs["counter"].content == f"count: {WORKERS * STEPS}\n"
    for kind, document in docs.items():
        assert document.revision == 1 + WORKERS * STEPS, kind
        assert [r.revision for r in histories[kind]] == list(range(1, document.revision + 1)), kind
    assert {r.author for r in histories["counter"][1:]} == {f"w{i}" for i in range(WORKERS)}
