"""What a person or an agent sees of checkpoint memory: the tenant's threads, and a
thread's checkpoints newest first with their pending writes and what the run waits for.
One view for every surface (CLI, HTTP, MCP)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .._core.time import format_timestamp, from_micros
from .._core.values import normalise_subject
from ..ledger.actions import Action
from ..lifecycle.erasure import names
from ..memory.facade import Memory
from ..store._sql.checkpoints import ThreadRow
from .checkpoint import SgamSaver


@dataclass(frozen=True, slots=True)
class ThreadSummary:
    thread_id: str
    retention: str
    checkpoints: int
    first_at: str | None
    last_at: str | None


@dataclass(frozen=True, slots=True)
class CheckpointSummary:
    checkpoint_id: str
    checkpoint_ns: str
    parent_id: str | None
    step: Any
    source: Any
    pending_writes: list[str]
    """The channels a task has written to since the checkpoint (``__interrupt__``: a run waits)."""
    waiting_for: list[Any]
    """The values of the interrupts the run is stopped at, if any."""


@dataclass(frozen=True, slots=True)
class ThreadAction:
    """An external call the thread's run made through the action ledger (``Memory.once``):
    begun (``in_doubt`` until its outcome is recorded) or finished (``done``)."""

    action_key: str
    status: str
    began_at: str
    finished_at: str | None
    attempts: int
    error: str | None


@dataclass(frozen=True, slots=True)
class ThreadDetail:
    thread: ThreadSummary
    subjects: list[str]
    checkpoints: list[CheckpointSummary]
    """Newest first: time travel goes down the list."""
    actions: list[ThreadAction] = field(default_factory=list)
    """In the order they began."""


def _instant(micros: int | None) -> str | None:
    return None if micros is None else format_timestamp(from_micros(micros))


def _summary(row: ThreadRow) -> ThreadSummary:
    return ThreadSummary(row.thread_id, row.retention, row.checkpoints, _instant(row.first_at), _instant(row.last_at))


def thread_summary(saver: SgamSaver, thread_id: str) -> ThreadSummary:
    return _summary(saver.thread(thread_id)[0])


def list_threads(memory: Memory, tenant: str, limit: int = 100) -> list[ThreadSummary]:
    return [_summary(row) for row in SgamSaver(memory, tenant=tenant).threads(limit)]


def show_thread(memory: Memory, tenant: str, thread_id: str, limit: int = 20) -> ThreadDetail:
    """The thread's checkpoints newest first. An interrupt value naming a subject whose
    consent is revoked (for every purpose or any one) is left out of ``waiting_for``, as
    every read leaves out what it knows of the subject; ``pending_writes`` still says the
    run waits."""
    saver = SgamSaver(memory, tenant=tenant)
    row, subjects = saver.thread(thread_id)
    revoked = sorted({state.subject for state in memory.consents(tenant) if not state.granted})
    found = []
    for item in saver.list({"configurable": {"thread_id": thread_id}}, limit=limit):
        configurable = item.config["configurable"]
        writes = item.pending_writes or []
        found.append(CheckpointSummary(
            configurable["checkpoint_id"], configurable.get("checkpoint_ns", ""),
            (item.parent_config or {}).get("configurable", {}).get("checkpoint_id"),
            item.metadata.get("step"), item.metadata.get("source"),
            [channel for _, channel, _ in writes],
            [shown for _, channel, value in writes if channel == "__interrupt__"
             and not _names_any(shown := getattr(value, "value", value), revoked)],
        ))
    actions = [_action(action) for action in memory.actions(tenant, thread_id=thread_id, limit=limit)]
    return ThreadDetail(_summary(row), subjects, found, actions)


def _names_any(value: Any, subjects: list[str]) -> bool:
    """Whether ``value``, as JSON (escapes decoded), names any of ``subjects``; a subject
    id is case-folded, so the text is read folded too."""
    if not subjects:
        return False
    text = json.dumps(value, default=str, ensure_ascii=False)
    folded = normalise_subject(text)
    return any(names(text, subject) or subject in folded for subject in subjects)


def _action(action: Action) -> ThreadAction:
    return ThreadAction(action.key, action.status, format_timestamp(action.started_at),
                        None if action.finished_at is None else format_timestamp(action.finished_at),
                        action.attempts, action.error)
