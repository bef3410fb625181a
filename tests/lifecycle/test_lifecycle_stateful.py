"""Random sequences of lifecycle operations against ``Memory`` and an independent model.

The model shares no code with sgam: it keeps the accepted operations (writes,
retractions, corrections) and the episodes, and recomputes every answer by replaying
the surviving operations with the rules of spec/replay.md (one that finds nothing to act
on in the replay is skipped, as after an erasure); it applies deadlines, derivations,
tombstones, purpose fallback, consent, erasure of a subject and redeclared classes as
the Lifecycle section states them. After every step reads (``get`` per purpose at
several instants), episode existence and episode visibility under consent must agree,
and refused steps must fail with the model's error kind.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule, run_state_machine_as_test

from sgam import Memory, SgamError
from tests.conftest import BACKENDS, PostgresUrls, truncate_all

T = "acme"
EPISODES = ("e1", "e2", "e3", "e4")
SUBJECTS = ("ann", "bob")
PURPOSES = (None, "slides")
CLASSES = {"default": (None, "erase"), "short": (timedelta(hours=2), "erase"),
           "notes": (timedelta(hours=3), "keep_facts")}
TTLS = (None, 1, 2, 3, 6)
START = datetime(2026, 6, 1, tzinfo=UTC)
STARTS = tuple(START + timedelta(days=d) for d in (-3, -2, -1, 0))
PROBES = tuple(START + timedelta(days=d, hours=h) for d in (-4, -3, -2, -1, 0) for h in (0, 12))
SOURCES = ("e1", "e1", "e2", "e3")  # mostly the seeded episodes: most changes then apply
RETRACT_AT = (*(start + timedelta(hours=12) for start in STARTS), STARTS[1])
VALUES = ("x", "y", "z")


@dataclass
class Write:
    """An accepted operation: ``kind`` write (``start``, ``value``), retract (at
    ``start``) or correct (the assertion starting at ``start`` reads ``value``)."""

    subject: str
    purpose: str | None
    start: datetime
    value: str
    source: str
    expires: datetime | None
    kind: str = "write"


@dataclass
class EpisodeState:
    retention: str
    recorded: datetime
    sources: frozenset[str]
    lost: bool = False


@dataclass
class Model:
    now: datetime = START
    episodes: dict[str, EpisodeState] = field(default_factory=dict)
    reserved: set[str] = field(default_factory=set)
    writes: list[Write] = field(default_factory=list)
    consent: list[tuple[str, str | None, bool]] = field(default_factory=list)
    classes: dict[str, tuple[timedelta | None, str]] = field(default_factory=lambda: dict(CLASSES))

    # deadlines ----------------------------------------------------------------------

    def settle(self) -> None:
        self.writes = [w for w in self.writes if w.expires is None or w.expires > self.now]
        for episode_id in sorted(self.episodes):
            state = self.episodes.get(episode_id)
            if state is None:
                continue
            ttl, on_expiry = self.classes[state.retention]
            if ttl is None or state.recorded + ttl > self.now:
                continue
            if on_expiry == "erase":
                self.erase(episode_id)
            elif not state.lost:
                for lost in self.family(episode_id):
                    self.episodes[lost].lost = True

    def family(self, root: str) -> set[str]:
        found = {root}
        while True:
            more = {e for e, s in self.episodes.items() if s.sources & found} - found
            if not more:
                return found
            found |= more

    def erase(self, root: str) -> None:
        doomed = self.family(root)
        self.writes = [w for w in self.writes if w.source not in doomed]
        for episode_id in doomed:
            del self.episodes[episode_id]
        self.reserved |= doomed

    def readable(self, episode_id: str) -> bool:
        state = self.episodes.get(episode_id)
        return state is not None and not state.lost

    def visible(self, episode_id: str) -> bool:
        """Readable, and not the source of an operation about a subject whose consent is
        revoked (a read without purpose: the every-purpose statement decides)."""
        return self.readable(episode_id) and all(
            self.allows(w.subject, None) for w in self.writes if w.source == episode_id)

    def forget_subject(self, subject: str) -> None:
        self.writes = [w for w in self.writes if w.subject != subject]  # consent stays as it stands

    # consent ------------------------------------------------------------------------

    def allows(self, subject: str, purpose: str | None) -> bool:
        for who, scope, granted in reversed(self.consent):
            if who == subject and (scope is None or scope == purpose):
                return granted
        return True

    # the ledger's rules, writes only --------------------------------------------------

    def timeline(self, subject: str, purpose: str | None, extra: Write | None = None) -> tuple[list[list[Any]], bool]:
        """Intervals [start, end, value] of a timeline; whether ``extra`` was refused."""
        spans: list[list[Any]] = []
        refused = False
        ops = [w for w in self.writes if w.subject == subject and w.purpose == purpose]
        for write in ops + ([extra] if extra is not None else []):
            ok = self._apply(spans, write)
            if write is extra:
                refused = not ok
        return spans, refused

    @staticmethod
    def _apply(spans: list[list[Any]], w: Write) -> bool:
        if w.kind == "retract":
            for span in spans:
                if span[0] < w.start and (span[1] is None or w.start < span[1]):
                    span[1] = w.start
                    return True
            return False
        if w.kind == "correct":
            for span in spans:
                if span[0] == w.start:
                    span[2] = w.value
                    return True
            return False
        for span in spans:
            if span[0] == w.start:
                return span[2] == w.value
        for span in spans:
            if span[0] < w.start and (span[1] is None or w.start < span[1]):
                if span[2] == w.value:
                    return True
                end, span[1] = span[1], w.start
                spans.append([w.start, end, w.value])
                return True
        later = [s[0] for s in spans if s[0] > w.start]
        spans.append([w.start, min(later) if later else None, w.value])
        return True

    def get(self, subject: str, purpose: str | None, at: datetime) -> str | None:
        if not self.allows(subject, purpose):
            return None
        for scope in ([purpose, None] if purpose is not None else [None]):
            spans, _ = self.timeline(subject, scope)
            for start, end, value in spans:
                if start <= at and (end is None or at < end):
                    return str(value)
        return None


def sqlite_store(folder: Path) -> str:
    return f"sqlite:///{folder / 'lifecycle.db'}"


class LifecycleMachine(RuleBasedStateMachine):
    fresh_store: Callable[[Path], str] = staticmethod(sqlite_store)

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="sgam-lifecycle-"))
        self.model = Model()
        self.memory = Memory(self.fresh_store(self.folder), clock=lambda: self.model.now,
                             erasure_key=b"k" * 32)
        for name, (ttl, on_expiry) in CLASSES.items():
            if name != "default":
                self.memory.retention(T, name, f"PT{int(ttl.total_seconds()) // 3600}H" if ttl else None,
                                      on_expiry=on_expiry)

    @initialize()
    def seed(self) -> None:
        """Two readable episodes and a value per subject, so that retractions,
        corrections and erasures have something to act on from the first step."""
        self.add_episode("e1", "default", set())
        self.add_episode("e2", "short", set())
        for subject, source in zip(SUBJECTS, ("e1", "e2"), strict=True):
            self.write(subject, None, STARTS[0], "x", source, None)
        self.write("ann", "slides", STARTS[1], "y", "e1", None)

    def teardown(self) -> None:
        self.memory.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _expect(self, kind: str | None, call: Callable[[], object]) -> None:
        try:
            call()
        except SgamError as exc:
            assert exc.kind == kind, (exc.kind, kind, exc.message)
            return
        assert kind is None, f"expected {kind}"

    @rule(hours=st.sampled_from((0, 1, 2, 3)))
    def advance(self, hours: int) -> None:
        self.model.now += timedelta(hours=hours, microseconds=1)
        self.model.settle()

    @rule(episode=st.sampled_from(EPISODES), retention=st.sampled_from(tuple(CLASSES)),
          sources=st.sets(st.sampled_from(EPISODES), max_size=2))
    def add_episode(self, episode: str, retention: str, sources: set[str]) -> None:
        m = self.model
        m.settle()
        state = m.episodes.get(episode)
        if any(not m.readable(s) for s in sources):
            kind: str | None = "not_found"
        elif episode in m.reserved or (state is not None and state.lost):
            kind = "conflict"
        elif state is not None:
            kind = None if (state.retention, state.sources) == (retention, frozenset(sources)) else "conflict"
        else:
            kind = None
            m.episodes[episode] = EpisodeState(retention, m.now, frozenset(sources))
        self._expect(kind, lambda: self.memory.add_episode(
            T, episode, START, f"text of {episode}", retention=retention, derived_from=sorted(sources)))

    @rule(subject=st.sampled_from(SUBJECTS), purpose=st.sampled_from(PURPOSES), start=st.sampled_from(STARTS),
          value=st.sampled_from(VALUES), source=st.sampled_from(EPISODES),
          expires=st.sampled_from((None, 1, 2, 5)))
    def write(self, subject: str, purpose: str | None, start: datetime, value: str, source: str,
              expires: int | None) -> None:
        m = self.model
        m.settle()
        deadline = None if expires is None else m.now + timedelta(hours=expires)
        new = Write(subject, purpose, start, value, source, deadline)
        if not m.allows(subject, purpose):
            kind: str | None = "denied"
        elif not m.readable(source):
            kind = "not_found"
        elif m.timeline(subject, purpose, new)[1]:
            kind = "conflict"
        else:
            kind = None
            m.writes.append(new)
        self._expect(kind, lambda: self.memory.write(T, subject, "x", value, start, source, purpose=purpose,
                                                     expires_at=deadline))

    @rule(subject=st.sampled_from(SUBJECTS), purpose=st.sampled_from(PURPOSES), start=st.sampled_from(RETRACT_AT),
          source=st.sampled_from(SOURCES))
    def retract(self, subject: str, purpose: str | None, start: datetime, source: str) -> None:
        self._change("retract", subject, purpose, start, "", source)

    @rule(subject=st.sampled_from(SUBJECTS), purpose=st.sampled_from(PURPOSES), start=st.sampled_from(STARTS),
          value=st.sampled_from(VALUES), source=st.sampled_from(SOURCES))
    def correct(self, subject: str, purpose: str | None, start: datetime, value: str, source: str) -> None:
        self._change("correct", subject, purpose, start, value, source)

    def _change(self, kind: str, subject: str, purpose: str | None, start: datetime, value: str, source: str) -> None:
        m = self.model
        m.settle()
        new = Write(subject, purpose, start, value, source, None, kind)
        expected: str | None
        if not m.allows(subject, purpose):
            expected = "denied"
        elif not m.readable(source):
            expected = "not_found"
        elif m.timeline(subject, purpose, new)[1]:
            expected = "not_found"
        else:
            expected = None
            m.writes.append(new)
        if kind == "retract":
            self._expect(expected, lambda: self.memory.retract(T, subject, "x", start, source, purpose=purpose))
        else:
            self._expect(expected, lambda: self.memory.correct(T, subject, "x", start, value, source,
                                                               purpose=purpose))

    @rule(subject=st.sampled_from(SUBJECTS))
    def forget_subject(self, subject: str) -> None:
        self.model.settle()
        self.model.forget_subject(subject)
        self.memory.forget_subject(T, subject)

    @rule(name=st.sampled_from(tuple(CLASSES)), hours=st.sampled_from(TTLS),
          on_expiry=st.sampled_from(("erase", "keep_facts")))
    def redeclare(self, name: str, hours: int | None, on_expiry: str) -> None:
        m = self.model
        m.settle()  # at the class as it stood: a longer ttl never brings anything back
        m.classes[name] = (None if hours is None else timedelta(hours=hours), on_expiry)
        m.settle()
        self.memory.retention(T, name, None if hours is None else f"PT{hours}H", on_expiry=on_expiry)

    @rule(episode=st.sampled_from(EPISODES))
    def forget_episode(self, episode: str) -> None:
        m = self.model
        m.settle()
        kind = None if episode in m.episodes else "not_found"
        if kind is None:
            m.erase(episode)
        self._expect(kind, lambda: self.memory.forget_episode(T, episode))

    @rule(subject=st.sampled_from(SUBJECTS), purpose=st.sampled_from(PURPOSES), granted=st.booleans())
    def consent(self, subject: str, purpose: str | None, granted: bool) -> None:
        self.model.settle()
        self.model.consent.append((subject, purpose, granted))
        self.memory.consent(T, subject, granted, purpose=purpose)

    @invariant()
    def reads_match_the_model(self) -> None:
        m = self.model
        m.settle()
        for episode in EPISODES:
            assert (self.memory.ledger.episode(T, episode) is not None) == m.readable(episode), episode
            assert (self.memory.episode(T, episode) is not None) == m.visible(episode), episode
        for subject in SUBJECTS:
            for purpose in (*PURPOSES, "report"):
                for at in PROBES:
                    found = self.memory.get(T, subject, "x", at=at, purpose=purpose)
                    assert (None if found is None else found.value) == m.get(subject, purpose, at), (
                        subject, purpose, at)


@pytest.mark.parametrize("backend", BACKENDS)
def test_lifecycle_matches_an_independent_model(backend: str, request: pytest.FixtureRequest) -> None:
    """The same machine on each backend; PostgreSQL runs fewer, shorter examples."""
    if backend == "sqlite":
        fresh, examples, steps = sqlite_store, 60, 25
    else:
        urls: PostgresUrls = request.getfixturevalue("postgres_urls")

        def fresh(_: Path) -> str:
            truncate_all(urls.admin)
            return urls.app

        examples, steps = 12, 15
    LifecycleMachine.fresh_store = staticmethod(fresh)
    try:
        run_state_machine_as_test(LifecycleMachine, settings=settings(
            max_examples=examples, stateful_step_count=steps, deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ))
    finally:
        LifecycleMachine.fresh_store = staticmethod(sqlite_store)
