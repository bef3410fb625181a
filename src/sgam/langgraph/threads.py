"""What a person or an agent sees of checkpoint memory: the tenant's threads, and a
thread's checkpoints newest first with their pending writes and what the run waits for.
One view for every surface (CLI, HTTP, MCP, the inspector): every value a run stored
(interrupt values, the state) leaves as JSON data through the boundary's one encoding."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .._core.errors import ValidationError
from .._core.time import format_timestamp, from_micros, parse_timestamp
from .._core.values import check_tenant, normalise_subject
from ..boundary import to_json_data
from ..ledger.actions import Action
from ..lifecycle.erasure import names
from ..memory.facade import Memory
from ..store.contract import ThreadRow
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
    at: str | None
    """When LangGraph took the checkpoint (RFC 3339, UTC)."""
    pending_writes: list[str]
    """The channels a task has written to since the checkpoint (``__interrupt__``: a run waits)."""
    waiting_for: list[Any]
    """The value of each interrupt the run is stopped at (what ``interrupt(value)`` was
    given), as JSON data; empty when it waits for nothing."""


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
    actions: list[ThreadAction]
    """In the order they began."""
    status: str
    """Of the root run, at its newest checkpoint: ``waiting`` (stopped at an interrupt),
    ``finished`` (no node left to run) or ``stopped`` (nodes left to run and no
    interrupt: the run failed or is still going); ``empty`` without checkpoints."""
    next: list[str]
    """The nodes the run goes on with (the nodes triggered at the newest checkpoint)."""
    values: dict[str, Any]
    """The state at the newest checkpoint: its channels' values, as JSON data (a channel
    whose value names a subject with revoked consent left out, as its interrupts are)."""


_TRIGGER = "branch:to:"
"""LangGraph's channel that triggers a node: set at a checkpoint, the node runs next."""


def _instant(micros: int | None) -> str | None:
    return None if micros is None else format_timestamp(from_micros(micros))


def _summary(row: ThreadRow) -> ThreadSummary:
    return ThreadSummary(row.thread_id, row.retention, row.checkpoints, _instant(row.first_at), _instant(row.last_at))


def thread_summary(saver: SgamSaver, thread_id: str) -> ThreadSummary:
    return _summary(saver.thread(thread_id)[0])


def list_threads(memory: Memory, tenant: str, limit: int = 100) -> list[ThreadSummary]:
    return [_summary(row) for row in SgamSaver(memory, tenant=tenant).threads(limit)]


def show_thread(memory: Memory, tenant: str, thread_id: str, limit: int = 20) -> ThreadDetail:
    """The thread's checkpoints newest first. A subject whose consent is revoked (for every
    purpose or any one) is left out of the subjects the thread is about, and a value naming
    it out of ``waiting_for`` and the state, as every read leaves out what it knows of the
    subject; ``pending_writes`` still says the run waits."""
    saver = SgamSaver(memory, tenant=tenant)
    row, named = saver.thread(thread_id)
    revoked = _revoked_names(memory, tenant)
    subjects = [subject for subject in named if subject not in revoked]
    found = []
    head = None
    for item in saver.list({"configurable": {"thread_id": thread_id}}, limit=limit):
        configurable = item.config["configurable"]
        namespace = configurable.get("checkpoint_ns", "")
        if head is None and not namespace:
            head = item
        writes = item.pending_writes or []
        found.append(CheckpointSummary(
            configurable["checkpoint_id"], namespace,
            (item.parent_config or {}).get("configurable", {}).get("checkpoint_id"),
            item.metadata.get("step"), item.metadata.get("source"), _taken(item.checkpoint.get("ts")),
            [channel for _, channel, _ in writes],
            [to_json_data(value) for _, channel, written in writes if channel == "__interrupt__"
             for value in _interrupt_values(written) if not _names_any(value, revoked)],
        ))
    actions = [_action(action) for action in memory.actions(tenant, thread_id=thread_id, limit=limit)]
    if head is None:
        return ThreadDetail(_summary(row), subjects, found, actions, "empty", [], {})
    channels = head.checkpoint.get("channel_values", {})
    after = [channel[len(_TRIGGER):] for channel in channels if channel.startswith(_TRIGGER)]
    after += ["__start__"] if "__start__" in channels else []
    waiting = any(channel == "__interrupt__" for _, channel, _ in head.pending_writes or [])
    status = "waiting" if waiting else "stopped" if after else "finished"
    values = {name: to_json_data(value) for name, value in channels.items()
              if not name.startswith(("__", _TRIGGER)) and not _names_any(value, revoked)}
    return ThreadDetail(_summary(row), subjects, found, actions, status, after, values)


def _interrupt_values(written: Any) -> list[Any]:
    """What each interrupt a task wrote was given: LangGraph writes a list of
    ``Interrupt`` records (an older writer, or a hand-made one, a single value)."""
    interrupts = written if isinstance(written, (list, tuple)) else [written]
    return [getattr(each, "value", each) for each in interrupts]


def _taken(ts: Any) -> str | None:
    """A checkpoint's own timestamp as every other instant is shown; None if it has none."""
    if not isinstance(ts, str):
        return None
    try:
        return format_timestamp(parse_timestamp(ts, "ts"))
    except ValidationError:
        return None


def _revoked_names(memory: Memory, tenant: str) -> list[str]:
    """Every name, as the ledger stands now, of a subject with a revocation in force (for
    every purpose or any one): a statement about any name of a subject applies to it, so
    a value naming ``robert`` is left out while ``bob``, another name of his, is revoked."""
    found: set[str] = set()
    with memory.ledger.read(check_tenant(tenant), "threads") as reader:
        for row in reader.revoking_consents(None):
            if not row.granted:
                meant = reader.resolve_subject(row.subject)
                found.update((row.subject, meant, *reader.names_meaning(meant)))
    return sorted(found)


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
