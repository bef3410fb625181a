"""Random sequences of ledger operations against ``Memory`` and an independent model.

The model below is deliberately naive: it keeps the list of accepted operations and
recomputes every answer from scratch by replaying the surviving ones with the rules as
docs/replay.md states them; it shares no code with ``sgam._core.rules`` (``KeyTimeline`` is
used only to re-derive the stored operation log and compare). After every step the
machine compares reads (``get`` at many ``at``/``known_at``, ``history`` at many
``known_at``), the error kind of refused operations, the interval invariants, and that
the stored versions equal a re-derivation of the stored operation log.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, timezone
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from sgam import Assertion, Memory, SgamError
from sgam._core.rules import KeyTimeline, Version, as_last_seen
from tests.conftest import BACKENDS, PostgresUrls, truncate_all

TENANTS = ("t1", "t2")
SUBJECTS = ("s1", "s2")
ATTRIBUTES = ("a", "b")
EPISODES = ("e1", "e2", "e3")
TEXTS = ("first text", "second text")
EPISODE_AT = datetime(2026, 5, 1, tzinfo=UTC)
DAY0 = datetime(2026, 6, 1, tzinfo=UTC)
INSTANTS = tuple(DAY0 + timedelta(days=d) for d in (0, 1, 2, 3, 5))
PROBES = tuple(DAY0 + timedelta(hours=h) for h in (-24, 0, 12, 24, 36, 48, 60, 72, 96, 120, 144))
VALUES: tuple[Any, ...] = ("x", "y", 1, 1.0, True, {"k": 1, "j": [1, 2]}, {"j": [1, 2.0], "k": 1})
CLOCK_START = datetime(2026, 7, 1, tzinfo=UTC)
ZONES = (timedelta(0), timedelta(hours=2), timedelta(hours=-5, minutes=-30))
TYPES = (None, "string", "integer", "number", "boolean", "object")


def spelled(moment: datetime, zone: timedelta | None) -> datetime | str:
    """The same instant as a datetime, or as RFC 3339 text in another zone."""
    if zone is None:
        return moment
    local = moment.astimezone(timezone(zone))
    return local.isoformat().replace("+00:00", "Z")


def type_accepts(declared: str | None, value: Any) -> bool:
    """The declared types of the replay format (docs/replay.md), written independently of sgam."""
    if declared is None:
        return True
    if declared == "string":
        return isinstance(value, str)
    if declared == "boolean":
        return isinstance(value, bool)
    if declared == "object":
        return isinstance(value, dict)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return declared == "number" or float(value).is_integer()
CLOCK_STEPS = (timedelta(0), timedelta(microseconds=1), timedelta(seconds=1), timedelta(hours=1))


def canon(value: Any) -> str:
    """JSON equality, written independently of sgam: integral floats are integers."""

    def norm(item: Any) -> Any:
        if isinstance(item, float) and item.is_integer():
            return int(item)
        if isinstance(item, dict):
            return {key: norm(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [norm(inner) for inner in item]
        return item

    return json.dumps(norm(value), sort_keys=True)


@dataclass
class ModelOp:
    tenant: str
    subject: str
    attribute: str
    kind: str
    at: datetime
    value: str | None
    source: str
    recorded: datetime


@dataclass
class Span:
    start: datetime
    end: datetime | None
    value: str
    source: str

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment and (self.end is None or moment < self.end)


def apply_rule(spans: list[Span], op: ModelOp) -> str | None:
    """Apply ``op`` to one key's spans in place; return the error kind if refused."""
    if op.kind == "write":
        assert op.value is not None
        same_start = [s for s in spans if s.start == op.at]
        if same_start:
            return None if same_start[0].value == op.value else "conflict"
        holders = [s for s in spans if s.contains(op.at)]
        if holders:
            holder = holders[0]
            if holder.value == op.value:
                return None
            spans.append(Span(op.at, holder.end, op.value, op.source))
            holder.end = op.at
            return None
        later = [s.start for s in spans if s.start > op.at]
        spans.append(Span(op.at, min(later) if later else None, op.value, op.source))
        return None
    if op.kind == "retract":
        holders = [s for s in spans if s.start < op.at and s.contains(op.at)]
        if not holders:
            return "not_found"
        holders[0].end = op.at
        return None
    targets = [s for s in spans if s.start == op.at]
    if not targets:
        return "not_found"
    assert op.value is not None
    targets[0].value, targets[0].source = op.value, op.source
    return None


@dataclass
class Model:
    episodes: dict[str, dict[str, str]] = field(default_factory=lambda: {t: {} for t in TENANTS})
    erased: set[tuple[str, str]] = field(default_factory=set)  # ids stay reserved (tombstones)
    types: dict[tuple[str, str], str | None] = field(default_factory=dict)
    log: list[ModelOp] = field(default_factory=list)

    def spans(self, tenant: str, subject: str, attribute: str, known: datetime | None) -> list[Span]:
        spans: list[Span] = []
        for op in self.log:
            if (op.tenant, op.subject, op.attribute) != (tenant, subject, attribute):
                continue
            if known is not None and op.recorded > known:
                continue
            apply_rule(spans, op)
        return sorted(spans, key=lambda s: s.start)

    def refusal(self, op: ModelOp, raw: Any = None) -> str | None:
        if op.kind != "retract" and op.value is None:
            return "validation"
        if op.kind != "retract" and not type_accepts(self.types.get((op.tenant, op.attribute)), raw):
            return "validation"
        if op.source not in self.episodes[op.tenant]:
            return "not_found"
        trial = [replace(s) for s in self.spans(op.tenant, op.subject, op.attribute, None)]
        return apply_rule(trial, op)


def answer(found: Assertion | None) -> tuple[datetime, datetime | None, str, str] | None:
    return None if found is None else (found.valid_from, found.valid_to, canon(found.value), found.source)


def expected(spans: list[Span], moment: datetime) -> tuple[datetime, datetime | None, str, str] | None:
    for span in spans:
        if span.contains(moment):
            return (span.start, span.end, span.value, span.source)
    return None


def version_key(v: Version) -> tuple[Any, ...]:
    return (v.assertion_id, v.value, v.valid_from, v.valid_to, v.recorded_from, v.recorded_to, v.source,
            v.supersedes, v.origin, v.closed_by, v.memory_type, v.confidence, v.schema_version)


def assert_no_overlap(assertions: list[Assertion], what: str) -> None:
    ordered = sorted(assertions, key=lambda a: a.valid_from)
    for before, after in pairwise(ordered):
        assert before.valid_to is not None and before.valid_to <= after.valid_from, (what, before, after)


def sqlite_store(folder: Path) -> str:
    return f"sqlite:///{folder / 'ledger.db'}"


class LedgerMachine(RuleBasedStateMachine):
    # How each example gets an empty store; the test of each backend sets it.
    fresh_store: Callable[[Path], str] = staticmethod(sqlite_store)

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="sgam-stateful-"))
        self.now = CLOCK_START
        self.memory = Memory(type(self).fresh_store(self.folder), clock=lambda: self.now)
        self.model = Model()
        self.instants_used: set[datetime] = set()
        self.touched = TENANTS[0]

    def teardown(self) -> None:
        self.memory.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # operations ---------------------------------------------------------------------

    @rule(step=st.sampled_from(CLOCK_STEPS))
    def advance_clock(self, step: timedelta) -> None:
        self.now += step

    @rule(tenant=st.sampled_from(TENANTS), episode=st.sampled_from(EPISODES), text=st.sampled_from(TEXTS))
    def add_episode(self, tenant: str, episode: str, text: str) -> None:
        known = self.model.episodes[tenant].get(episode)
        reserved = (tenant, episode) in self.model.erased
        want = None if not reserved and (known is None or known == text) else "conflict"
        self._expect(want, lambda: self.memory.add_episode(tenant, episode, EPISODE_AT, text))
        if want is None:
            self.model.episodes[tenant][episode] = text
        self.touched = tenant

    @rule(tenant=st.sampled_from(TENANTS), subject=st.sampled_from(SUBJECTS),
          attribute=st.sampled_from(ATTRIBUTES), at=st.sampled_from(INSTANTS),
          value=st.one_of(st.sampled_from(VALUES), st.none()), source=st.sampled_from(EPISODES),
          zone=st.one_of(st.none(), st.sampled_from(ZONES)))
    def write(self, tenant: str, subject: str, attribute: str, at: datetime, value: Any, source: str,
              zone: timedelta | None) -> None:
        self._operate("write", tenant, subject, attribute, at, value, source,
                      lambda: self.memory.write(tenant, subject, attribute, value, spelled(at, zone), source))

    @rule(tenant=st.sampled_from(TENANTS), subject=st.sampled_from(SUBJECTS),
          attribute=st.sampled_from(ATTRIBUTES), at=st.sampled_from(INSTANTS),
          source=st.sampled_from(EPISODES), zone=st.one_of(st.none(), st.sampled_from(ZONES)))
    def retract(self, tenant: str, subject: str, attribute: str, at: datetime, source: str,
                zone: timedelta | None) -> None:
        self._operate("retract", tenant, subject, attribute, at, None, source,
                      lambda: self.memory.retract(tenant, subject, attribute, spelled(at, zone), source))

    @rule(tenant=st.sampled_from(TENANTS), subject=st.sampled_from(SUBJECTS),
          attribute=st.sampled_from(ATTRIBUTES), at=st.sampled_from(INSTANTS),
          value=st.sampled_from(VALUES), source=st.sampled_from(EPISODES))
    def correct(self, tenant: str, subject: str, attribute: str, at: datetime, value: Any, source: str) -> None:
        self._operate("correct", tenant, subject, attribute, at, value, source,
                      lambda: self.memory.correct(tenant, subject, attribute, at, value, source))

    @rule(tenant=st.sampled_from(TENANTS), attribute=st.sampled_from(ATTRIBUTES), declared=st.sampled_from(TYPES))
    def declare(self, tenant: str, attribute: str, declared: str | None) -> None:
        self._expect(None, lambda: self.memory.declare(tenant, attribute, declared))
        self.model.types[(tenant, attribute)] = declared

    @rule(tenant=st.sampled_from(TENANTS), facts=st.lists(
        st.tuples(st.sampled_from(SUBJECTS), st.sampled_from(ATTRIBUTES), st.sampled_from(INSTANTS),
                  st.one_of(st.sampled_from(VALUES), st.none()), st.sampled_from(EPISODES)),
        min_size=1, max_size=4))
    def write_many(self, tenant: str, facts: list[tuple[str, str, datetime, Any, str]]) -> None:
        """One transaction: checks run in the order validation, not_found, conflict over
        the whole batch; a refused batch leaves nothing behind."""
        ops = [ModelOp(tenant, subject, attribute, "write", at, None if value is None else canon(value),
                       source, self.now) for subject, attribute, at, value, source in facts]
        want: str | None = None
        if any(op.value is None for op in ops) or not all(
                type_accepts(self.model.types.get((tenant, attribute)), value)
                for _, attribute, _, value, _ in facts):
            want = "validation"
        elif any(op.source not in self.model.episodes[tenant] for op in ops):
            want = "not_found"
        else:
            want = self._batch_refusal(ops)
        batch = [{"subject": s, "attribute": a, "value": v, "valid_from": at, "source": src}
                 for s, a, at, v, src in facts]
        self._expect(want, lambda: self.memory.write_many(tenant, batch))
        if want is None:
            self.model.log.extend(ops)
            self.instants_used.add(self.now)
        self.touched = tenant

    def _batch_refusal(self, ops: list[ModelOp]) -> str | None:
        states: dict[tuple[str, str, str], list[Span]] = {}
        for op in ops:
            key = (op.tenant, op.subject, op.attribute)
            if key not in states:
                states[key] = self.model.spans(*key, None)
            refused = apply_rule(states[key], op)
            if refused is not None:
                return refused
        return None

    @rule(tenant=st.sampled_from(TENANTS), episode=st.sampled_from(EPISODES))
    def forget_episode(self, tenant: str, episode: str) -> None:
        want = None if episode in self.model.episodes[tenant] else "not_found"
        self._expect(want, lambda: self.memory.forget_episode(tenant, episode))
        if want is None:
            del self.model.episodes[tenant][episode]
            self.model.erased.add((tenant, episode))
            self.model.log = [op for op in self.model.log if (op.tenant, op.source) != (tenant, episode)]
        self.touched = tenant

    @rule(tenant=st.sampled_from(TENANTS), subject=st.sampled_from(SUBJECTS))
    def forget_subject(self, tenant: str, subject: str) -> None:
        self._expect(None, lambda: self.memory.forget_subject(tenant, subject))
        self.model.log = [op for op in self.model.log if (op.tenant, op.subject) != (tenant, subject)]
        self.touched = tenant

    def _operate(self, kind: str, tenant: str, subject: str, attribute: str, at: datetime, value: Any,
                 source: str, call: Callable[[], object]) -> None:
        op = ModelOp(tenant, subject, attribute, kind, at, None if value is None else canon(value), source,
                     self.now)
        want = self.model.refusal(op, value)
        self._expect(want, call)
        if want is None:
            self.model.log.append(op)
            self.instants_used.add(self.now)
        self.touched = tenant

    def _expect(self, kind: str | None, call: Callable[[], object]) -> None:
        try:
            call()
        except SgamError as exc:
            assert kind == exc.kind, f"expected {kind or 'success'}, got {exc.kind}: {exc.message}"
            return
        assert kind is None, f"expected {kind}, the call succeeded"

    # checks -------------------------------------------------------------------------

    def _knowns(self) -> list[datetime]:
        used = sorted(self.instants_used)
        picked = {CLOCK_START - timedelta(microseconds=1), *used[:1], *used[-3:]}
        if len(used) > 4:
            picked.add(used[len(used) // 2])
        return sorted(picked)

    @invariant()
    def reads_match_the_model(self) -> None:
        knowns = self._knowns()
        for tenant in TENANTS:
            for subject in SUBJECTS:
                for attribute in ATTRIBUTES:
                    if tenant == self.touched:
                        self._check_key(tenant, subject, attribute, knowns)
                    else:
                        self._check_history(tenant, subject, attribute, None)
        self._check_query(self.touched, None)
        self._check_query(self.touched, knowns[-1])

    def _check_query(self, tenant: str, known: datetime | None) -> None:
        """``query`` over every valid time, paged three at a time with cursors."""
        want = [(s.start, s.end, s.value, s.source) for subject in SUBJECTS for attribute in ATTRIBUTES
                for s in self.model.spans(tenant, subject, attribute, known)]
        pages: list[Assertion] = []
        cursor: str | None = None
        while True:
            page = self.memory.query(tenant, all_times=True, known_at=known, limit=3, cursor=cursor)
            pages.extend(page)
            cursor = page.next_cursor
            if cursor is None:
                break
        assert [answer(a) for a in pages] == want, (tenant, known)
        assert [(a.subject, a.attribute) for a in pages] == sorted((a.subject, a.attribute) for a in pages)

    def _check_history(self, tenant: str, subject: str, attribute: str, known: datetime | None) -> None:
        spans = self.model.spans(tenant, subject, attribute, known)
        found = self.memory.history(tenant, subject, attribute, known_at=known)
        assert [answer(a) for a in found] == [(s.start, s.end, s.value, s.source) for s in spans], (
            tenant, subject, attribute, known)
        assert_no_overlap(found, f"history known_at={known}")

    def _check_key(self, tenant: str, subject: str, attribute: str, knowns: list[datetime]) -> None:
        for known in (None, *knowns):
            self._check_history(tenant, subject, attribute, known)
        for known in (None, knowns[-1], knowns[len(knowns) // 2]):
            spans = self.model.spans(tenant, subject, attribute, known)
            for probe in PROBES:
                got = answer(self.memory.get(tenant, subject, attribute, at=probe, known_at=known))
                assert got == expected(spans, probe), (tenant, subject, attribute, probe, known)
        self._check_versions(tenant, subject, attribute)

    def _check_versions(self, tenant: str, subject: str, attribute: str) -> None:
        versions = self.memory.versions(tenant, subject, attribute)
        for version in versions:
            assert version.valid_to is None or version.valid_to > version.valid_from, version
            assert version.superseded_at is None or version.superseded_at > version.recorded_at, version
        assert_no_overlap([v for v in versions if v.is_current], "current versions")
        for moment in {v.recorded_at for v in versions}:
            visible = [v for v in versions if v.recorded_at <= moment
                       and (v.superseded_at is None or v.superseded_at > moment)]
            assert_no_overlap(visible, f"visible at {moment}")
        with self.memory.backend.read(tenant) as reader:
            stored = sorted((version_key(v) for v in reader.versions(subject, attribute)), key=repr)
            timeline = KeyTimeline()
            timeline.replay(reader.operations(subject, attribute))
        assert stored == sorted((version_key(v) for v in as_last_seen(timeline.all_versions())), key=repr)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ledger_rules_hold_on_every_backend(backend: str, request: pytest.FixtureRequest) -> None:
    """The same machine on each backend; PostgreSQL runs fewer, shorter examples because
    every read is a round trip to a server."""
    if backend == "sqlite":
        fresh, examples, steps = sqlite_store, 150, 30
    else:
        urls: PostgresUrls = request.getfixturevalue("postgres_urls")

        def fresh(_: Path) -> str:
            truncate_all(urls.admin)
            return urls.app

        examples, steps = 20, 20
    LedgerMachine.fresh_store = staticmethod(fresh)
    try:
        run_state_machine_as_test(LedgerMachine, settings=settings(
            max_examples=examples, stateful_step_count=steps, deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ))
    finally:
        LedgerMachine.fresh_store = staticmethod(sqlite_store)
