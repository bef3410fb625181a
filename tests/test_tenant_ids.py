"""The ids a tenant sees are counted per tenant: they reveal nothing of other tenants.

A tenant's operation ids, assertion ids, what an assertion supersedes, its extractions'
and held candidates' ids are the same whether or not another tenant wrote in between,
on every backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sgam import Fact, Memory
from sgam.extraction import ExtractionPolicy, ScriptedClient
from tests.conftest import ManualClock

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"


def inferred(subject: str) -> dict[str, Any]:
    """A model's reply with one update it did not see stated: the policy holds it back."""
    return {"updates": [{"evidence": f"{subject} lives in Oslo", "subject": subject, "attribute": "city",
                         "current_value": None, "change": "new", "value": "Oslo", "valid_from": None,
                         "confidence": 0.9, "stated": False}]}


def remember_held(memory: Memory, tenant: str, episode: str, subject: str) -> list[int | None]:
    """Extract one held-back update from a new episode: the extraction's and the held ids."""
    done = memory.remember(tenant, episode, T1, f"{subject} lives in Oslo",
                           client=ScriptedClient.of([inferred(subject)]), policy=ExtractionPolicy())
    assert done.extraction is not None and done.extraction.decisions[0].held_id is not None
    return [done.extraction.id, done.extraction.decisions[0].held_id]


def ids_of_one_tenant(memory: Memory, tenant: str, clock: ManualClock, noise: str | None) -> list[int | None]:
    """Every id ``tenant`` is shown by a run of writes, corrections, a retraction and a
    batch; ``noise``, if given, writes ten facts of its own before each step."""

    def other_tenant_writes() -> None:
        if noise is not None:
            step = f"{clock.now.timestamp():.0f}"
            memory.write_many(noise, [Fact(f"n{step}-{i}", "city", "Oslo", T1, "n1") for i in range(10)])
            remember_held(memory, noise, f"n{step}", f"n{step}")

    seen: list[int | None] = []
    memory.add_episode(tenant, "e1", T1, "mira moved")
    other_tenant_writes()
    seen.append(memory.write(tenant, "mira", "city", "Paris", T1, "e1").operation_id)
    clock.advance()
    other_tenant_writes()
    seen.append(memory.write(tenant, "mira", "city", "Rome", T2, "e1").operation_id)
    clock.advance()
    other_tenant_writes()
    seen.append(memory.correct(tenant, "mira", "city", T2, "Milan", "e1").operation_id)
    clock.advance()
    other_tenant_writes()
    seen.append(memory.retract(tenant, "mira", "city", T3, "e1").operation_id)
    clock.advance()
    other_tenant_writes()
    seen += [r.operation_id for r in memory.write_many(tenant, [
        Fact("omar", "city", "Cairo", T1, "e1"), Fact("omar", "city", "Giza", T2, "e1")])]
    clock.advance()
    other_tenant_writes()
    seen += remember_held(memory, tenant, "e2", "ada")
    clock.advance()
    other_tenant_writes()
    seen += remember_held(memory, tenant, "e3", "bo")
    seen += [held.id for held in memory.held(tenant)]
    for subject in ("mira", "omar"):
        for version in memory.versions(tenant, subject, "city"):
            seen += [version.id, version.supersedes]
    return seen


def test_a_tenants_ids_are_the_same_whether_or_not_another_tenant_writes(
    memory: Memory, clock: ManualClock,
) -> None:
    memory.add_episode("globex", "n1", T1, "noise")
    interleaved = ids_of_one_tenant(memory, "acme", clock, noise="globex")
    alone = ids_of_one_tenant(memory, "initech", clock, noise=None)
    assert interleaved == alone
    assert alone[:6] == [1, 2, 3, 4, 5, 6]


def test_an_imported_tenant_keeps_counting_its_own_ids(memory: Memory, clock: ManualClock, tmp_path: Path) -> None:
    """An import numbers the tenant's operations, extractions and held candidates from
    its own counters, as they were in the tenant exported, and later writes count on."""
    memory.add_episode("globex", "n1", T1, "noise")
    memory.write_many("globex", [Fact(f"n{i}", "city", "Oslo", T1, "n1") for i in range(5)])
    remember_held(memory, "globex", "n2", "nia")
    memory.add_episode("acme", "e1", T1, "mira moved")
    memory.write("acme", "mira", "city", "Paris", T1, "e1")
    clock.advance()
    remember_held(memory, "acme", "e2", "ada")
    clock.advance()
    remember_held(memory, "acme", "e3", "bo")
    path = tmp_path / "acme.jsonl"
    memory.export_tenant("acme", path)

    memory.import_tenant("copy", path)

    def ids(tenant: str) -> list[list[int]]:
        return [[version.id for version in memory.versions(tenant, "mira", "city")],
                sorted(extraction.id for extraction in memory.extractions(tenant)),
                sorted(held.id for held in memory.held(tenant))]

    assert ids("copy") == ids("acme") == [[1], [1, 2], [1, 2]]
    clock.advance()
    assert remember_held(memory, "copy", "e4", "cy") == [3, 3]
    assert memory.write("copy", "mira", "city", "Rome", T2, "e1").operation_id == 2
