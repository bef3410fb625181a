"""``SgamSaver`` against LangGraph's own checkpointer conformance suite, every capability
(the optional ones included), on each backend."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES

from sgam import Memory
from sgam.langgraph import SgamSaver

from ..conftest import Store


def test_every_capability_passes(store: Store) -> None:
    memory = Memory(store.url)

    @checkpointer_test(name=f"SgamSaver[{store.backend}]")
    async def saver() -> AsyncIterator[SgamSaver]:
        yield SgamSaver(memory, tenant="acme")

    try:
        report = asyncio.run(validate(saver))
    finally:
        memory.close()
    results = report.results
    assert set(results) == {capability.value for capability in ALL_CAPABILITIES}
    failed = {name: result.failures for name, result in results.items() if not result.passed}
    assert not failed, failed
    assert all(result.detected and result.tests_passed > 0 for result in results.values())
