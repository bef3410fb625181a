"""Erasing a subject leaves its consent as it stands: a revocation outlives the erasure,
so what was erased is not learned again until consent is granted; statements that
decide nothing go with the subject's data."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgam import DeniedError, Memory
from sgam._core.purpose import EVERY_PURPOSE, ConsentRow, allowed, outlasting_erasure

from ..conftest import ManualClock

T = "acme"
PURPOSES = ("ads", "support", "slides")


def _seed(memory: Memory) -> None:
    memory.add_episodes(T, [{"id": "m1", "at": "2026-06-01T09:00:00Z", "text": "Mira lives in Oslo."}])
    memory.write(T, "mira", "city", "Oslo", "2026-06-01T09:00:00Z", "m1")


def test_a_revocation_stays_in_force_after_the_subject_is_erased(memory: Memory, clock: ManualClock) -> None:
    _seed(memory)
    memory.consent(T, "mira", False)
    clock.advance()
    memory.forget_subject(T, "mira")
    clock.advance()
    with pytest.raises(DeniedError):
        memory.write(T, "mira", "city", "Bergen", "2026-06-02T00:00:00Z", "m1")
    assert memory.consented(T, "mira") is False
    assert [(c.subject, c.purpose, c.granted) for c in memory.consents(T)] == [("mira", None, False)]
    assert memory.get(T, "mira", "city") is None
    assert all("mira" not in f"{row}".lower() for row in memory.audit(T))
    memory.consent(T, "mira", True)
    clock.advance()
    memory.add_episodes(T, [{"id": "m2", "at": "2026-06-02T09:00:00Z", "text": "Mira moved to Bergen."}])
    memory.write(T, "mira", "city", "Bergen", "2026-06-02T00:00:00Z", "m2")
    assert memory.get(T, "mira", "city").value == "Bergen"  # type: ignore[union-attr]


def test_a_revocation_stated_under_an_alias_outlives_the_erasure(memory: Memory, clock: ManualClock) -> None:
    """``bob`` is another name of ``robert``; the revocation stated under ``bob`` covers
    ``robert`` through it, so erasing ``robert`` (and the alias step with it) keeps it
    blocking both names."""
    memory.add_episodes(T, [{"id": "m1", "at": "2026-06-01T09:00:00Z", "text": "Robert lives in Oslo."}])
    memory.write(T, "robert", "city", "Oslo", "2026-06-01T09:00:00Z", "m1")
    memory.alias(T, "bob", "robert")
    clock.advance()
    memory.consent(T, "bob", False)
    clock.advance()
    memory.consent(T, "robert", True, purpose="support")  # an exception under the other name
    clock.advance()
    memory.forget_subject(T, "robert")
    clock.advance()
    for name in ("robert", "bob"):
        with pytest.raises(DeniedError):
            memory.write(T, name, "city", "Bergen", "2026-06-02T00:00:00Z", "m1")
        assert memory.consented(T, name) is False
        assert memory.consented(T, name, purpose="support") is True
    assert memory.get(T, "robert", "city") is None


def test_erasure_keeps_what_decides_a_use_and_drops_the_rest(memory: Memory, clock: ManualClock) -> None:
    _seed(memory)
    for subject, purpose, granted in [
        ("mira", "ads", True),        # older than the every-purpose revocation: overruled
        ("mira", None, False),
        ("mira", "support", True),    # an exception in the revocation: it must stay
        ("mira", "slides", False),    # the revocation says so already
        ("ola", None, True),          # a grant is what no statement means
        ("ola", "ads", False),
    ]:
        memory.consent(T, subject, granted, purpose=purpose)
        clock.advance()
    before = {(s, p): memory.consented(T, s, purpose=p) for s in ("mira", "ola") for p in (None, *PURPOSES)}
    memory.forget_subject(T, "mira")
    memory.forget_subject(T, "ola")
    after = {(s, p): memory.consented(T, s, purpose=p) for s in ("mira", "ola") for p in (None, *PURPOSES)}
    assert after == before
    assert sorted((c.subject, c.purpose or "", c.granted) for c in memory.consents(T)) == [
        ("mira", "", False), ("mira", "support", True), ("ola", "ads", False)]


def test_erasing_a_subject_that_only_granted_leaves_no_statement(memory: Memory) -> None:
    _seed(memory)
    memory.consent(T, "mira", True)
    memory.consent(T, "mira", True, purpose="ads")
    memory.forget_subject(T, "mira")
    assert memory.consents(T) == []
    assert memory.consented(T, "mira") is True


_statement = st.tuples(st.sampled_from((EVERY_PURPOSE, *PURPOSES)), st.booleans())


def _book(statements: list[tuple[str, bool]], start: int = 0,
          rows: list[ConsentRow] | None = None) -> list[ConsentRow]:
    """The latest statement per purpose after ``statements``, as the store keeps them."""
    latest = {row.purpose: row for row in rows or []}
    for seq, (purpose, granted) in enumerate(statements, start=start + 1):
        latest[purpose] = ConsentRow("mira", purpose, granted, seq, seq)
    return list(latest.values())


@given(st.lists(_statement, max_size=8), st.lists(_statement, max_size=4))
def test_kept_statements_decide_every_use_as_all_did_now_and_after_later_ones(
    earlier: list[tuple[str, bool]], later: list[tuple[str, bool]],
) -> None:
    full = _book(earlier)
    kept = outlasting_erasure(full)
    assert set(kept) <= set(full)
    continued_full = _book(later, len(earlier), full)
    continued_kept = _book(later, len(earlier), kept)
    for purpose in (None, *PURPOSES, "unstated"):
        assert allowed(kept, purpose) == allowed(full, purpose)
        assert allowed(continued_kept, purpose) == allowed(continued_full, purpose)
    assert all(not row.granted for row in kept if row.purpose == EVERY_PURPOSE)


_named_statement = st.tuples(st.sampled_from(["bob", "robert"]), st.sampled_from([None, *PURPOSES]), st.booleans())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_named_statement, min_size=1, max_size=6))
def test_statements_under_any_name_decide_every_use_by_each_name_after_the_erasure(
    memory: Memory, statements: list[tuple[str, str | None, bool]],
) -> None:
    """``bob`` is another name of ``robert``; whatever was stated under either name, once
    ``robert`` is erased each name decides every use as the subject did before."""
    tenant = f"t{next(_TENANTS)}"
    memory.alias(tenant, "bob", "robert")
    for name, purpose, granted in statements:
        memory.consent(tenant, name, granted, purpose=purpose)
    before = {purpose: memory.consented(tenant, "robert", purpose=purpose) for purpose in (None, *PURPOSES)}
    memory.forget_subject(tenant, "robert")
    for name in ("robert", "bob"):
        assert {purpose: memory.consented(tenant, name, purpose=purpose) for purpose in (None, *PURPOSES)} == before


_TENANTS = itertools.count()
