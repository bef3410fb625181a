"""Every public ``Memory`` method, fuzzed on both backends: only sgam's own errors may
escape, and a call that fails changes no table.

Methods are found by introspection, so a method added later is fuzzed too; arguments are
drawn per parameter name (``strategies.PLAUSIBLE``), often replaced by hostile values.
``extract`` and ``remember`` keep a record of a failed extraction by design, so their
failures may change the extraction tables (and ``remember`` its episode) and nothing else.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgam import Memory, SgamError
from sgam.extraction import ExtractionPolicy, ScriptedClient
from tests.conftest import ManualClock, Store

from .strategies import CALLS_PER_EXAMPLE, EXAMPLES, argument, table_hashes

SKIPPED = {"close", "export_tenant", "export_subject", "import_tenant", "move_tenant"}
"""``close`` ends the store; export, import and move read and write files the caller names
and take another store (tests/portability checks their bad input)."""
RECORDS_FAILURES = {"extract": {"extractions", "extraction_jobs", "tenant_counters"}, "remember": None}
"""Methods whose failures are recorded by design: the tables they may change (a recorded
failure draws its id from the tenant's counter; None: any
table an episode and its record touch)."""


def public_methods() -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(Memory, inspect.isfunction)
        if not name.startswith("_") and name not in SKIPPED
    }


METHODS = public_methods()


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, list[Any], dict[str, Any]]:
    name = draw(st.sampled_from(sorted(METHODS)))
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for parameter in list(METHODS[name].parameters.values())[1:]:
        required = parameter.default is inspect.Parameter.empty
        if not required and not draw(st.booleans()):
            continue
        value = draw(argument(parameter.name))
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[parameter.name] = value
        else:
            args.append(value)
    return name, args, kwargs


class Fuzzed:
    """A store with some of everything, and the count of calls made against it."""

    def __init__(self, url: str, admin: str | None) -> None:
        self.url, self.admin = url, admin
        self.memory = Memory(url, clock=ManualClock())
        self.calls = 0
        m = self.memory
        for tenant in ("acme", "globex"):
            m.add_episode(tenant, "e1", "2026-06-01T00:00:00Z", "mira lives in Paris.", speaker="ann", session="s1")
            m.add_episode(tenant, "e2", "2026-06-02T00:00:00Z", "zoë drinks tea.")
            m.write(tenant, "mira", "city", "Paris", "2026-06-01T00:00:00Z", "e1")
            m.declare(tenant, "drink", "string", sensitive=True)
            reply = {"updates": [{"evidence": "zoë drinks tea.", "subject": "zoë", "attribute": "drink",
                                  "change": "new", "value": "tea", "confidence": 0.9}]}
            m.extract(tenant, "e2", client=ScriptedClient.of([reply]), policy=ExtractionPolicy())

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> None:
        before = table_hashes(self.url, self.admin)
        self.calls += 1
        try:
            getattr(self.memory, name)(*args, **kwargs)
        except SgamError:
            after = table_hashes(self.url, self.admin)
            allowed = RECORDS_FAILURES.get(name, set())
            if allowed is None:
                return
            changed = {t for t in before if before[t] != after.get(t)} - allowed
            assert not changed, f"failed {name}{_shown(args, kwargs)} changed {sorted(changed)}"
        except Exception as exc:  # noqa: BLE001 - the point: nothing else may escape
            pytest.fail(f"{name}{_shown(args, kwargs)} raised {type(exc).__name__}: {str(exc)[:300]}")


def _shown(args: list[Any], kwargs: dict[str, Any]) -> str:
    from sgam._core.errors import bounded_repr

    shown = [bounded_repr(a) for a in args] + [f"{k}={bounded_repr(v)}" for k, v in kwargs.items()]
    return "(" + ", ".join(shown) + ")"


@pytest.fixture
def fuzzed(store: Store) -> Iterator[Fuzzed]:
    target = Fuzzed(store.url, store.admin if store.backend == "postgres" else None)
    yield target
    target.memory.close()
    print(f"\n{store.backend}: {target.calls} fuzzed Memory calls")


def test_every_public_method_raises_only_sgam_errors_and_a_failure_changes_nothing(fuzzed: Fuzzed) -> None:
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.large_base_example])
    @given(st.lists(calls(), min_size=CALLS_PER_EXAMPLE, max_size=CALLS_PER_EXAMPLE))
    def run(batch: list[tuple[str, list[Any], dict[str, Any]]]) -> None:
        for name, args, kwargs in batch:
            fuzzed.call(name, args, kwargs)

    run()
    assert fuzzed.calls >= EXAMPLES * CALLS_PER_EXAMPLE


def test_every_public_method_is_fuzzed() -> None:
    """Introspection finds the methods; this guards against it finding none."""
    assert {"write", "get", "forget_subject", "search", "recall", "extract", "purge_residue"} <= set(METHODS)
