"""The action ledger: external calls (a publish, a payment, a message) made at most
once per key, across crashes and retries.

``once`` records the intent (the request, under the tenant's ``action_key``) and commits
it before calling, then records the outcome. A retry with the same key returns the
recorded result without calling; the same key with another request is a conflict. An
intent with no outcome is *in doubt*: the call may or may not have reached the
destination, so it is never simply repeated — ``reconcile`` asks the destination, and
without one ``ActionInDoubt`` leaves the decision to a person. The key is handed to
``call`` so destinations that accept one receive it as their ``Idempotency-Key``;
``reconcile(key)`` answers ``Reconciled(True, result)``, ``Reconciled(False)`` (never
arrived: call again) or None (cannot tell: still in doubt).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .._core.errors import ActionInDoubt, ConflictError, SgamError, ValidationError
from .._core.time import from_micros
from .._core.values import MAX_VALUE_BYTES, canonical_json, check_name, check_tenant, load_value
from ..store import ActionRow, WriteTransaction
from .service import Ledger

ACTION_STATUSES = ("in_doubt", "done")
MAX_ERROR_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Reconciled:
    """What a destination says about an in-doubt action: it ``happened`` (with its
    result), or it never arrived and may be called again."""

    happened: bool
    result: Any = None


@dataclass(frozen=True, slots=True)
class Action:
    """One recorded action: its request, status, result and the last error seen."""

    tenant: str
    key: str
    request: Any
    status: str
    result: Any
    error: str | None
    attempts: int
    started_at: datetime
    finished_at: datetime | None
    thread_id: str | None = None
    """The checkpoint thread the action was made for: the LangGraph run it was called
    from, or the one ``once`` was given."""

    @classmethod
    def from_row(cls, row: ActionRow) -> Action:
        return cls(row.tenant, row.action_key, load_value(row.request), row.status,
                   None if row.result is None else load_value(row.result), row.error, row.attempts,
                   from_micros(row.started_at), None if row.finished_at is None else from_micros(row.finished_at),
                   row.thread_id)


def _running_thread() -> str | None:
    """The ``thread_id`` of the LangGraph run calling, when called from inside one (a
    node runs with its config in context); None elsewhere or without LangGraph."""
    try:
        from langgraph.config import get_config
    except ImportError:
        return None
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:  # not inside a runnable
        return None
    thread = configurable.get("thread_id")
    return None if thread is None or thread == "" else str(thread)


def once(
    ledger: Ledger, tenant: str, action_key: str, request: Any, call: Callable[[str], Any], *,
    reconcile: Callable[[str], Reconciled | None] | None = None, thread_id: str | None = None,
) -> Any:
    """Run ``call(action_key)`` at most once for this tenant and key; see the module. The
    action is recorded for ``thread_id``, or the LangGraph thread it is called from."""
    check_tenant(tenant)
    key = check_name(action_key, "action_key")
    thread = _running_thread() if thread_id is None else check_name(thread_id, "thread_id")
    request_text = canonical_json(request, "request", MAX_VALUE_BYTES)
    if not callable(call):
        raise ValidationError("call", call, "must be callable with the action key")
    if reconcile is not None and not callable(reconcile):
        raise ValidationError("reconcile", reconcile, "must be callable with the action key")
    now = ledger.now()

    def record_intent(txn: WriteTransaction) -> ActionRow | None:
        row = txn.action(key)
        if row is None:
            txn.insert_action(ActionRow(tenant, key, request_text, "in_doubt", None, None, 1, now, None, thread))
        return row

    existing = ledger.run_write(tenant, record_intent)
    if existing is not None:
        if existing.request != request_text:
            raise ConflictError(
                f"action {key!r} was recorded with another request; use a new key for a new action",
                field="action_key", value=key,
            )
        if existing.status == "done":
            return None if existing.result is None else load_value(existing.result)
        if reconcile is None:
            raise ActionInDoubt(
                f"action {key!r} began at {from_micros(existing.started_at).isoformat()} and its outcome was "
                "never recorded: it may have happened. Reconcile with the destination, or decide by hand",
                field="action_key", value=key,
            )
        answer = reconcile(key)
        if answer is None:
            raise ActionInDoubt(
                f"action {key!r} is in doubt and the destination cannot say whether it happened: decide by hand",
                field="action_key", value=key,
            )
        if not isinstance(answer, Reconciled):
            raise ValidationError("reconcile", answer, "must return a Reconciled, or None when it cannot tell")
        if answer.happened:
            return _finish(ledger, tenant, key, answer.result)
        _attempt_again(ledger, tenant, key)
    try:
        result = call(key)
    except BaseException as exc:
        _note_error(ledger, tenant, key, exc)
        raise
    return _finish(ledger, tenant, key, result)


def actions(ledger: Ledger, tenant: str, status: str | None, limit: int) -> list[Action]:
    if status is not None and status not in ACTION_STATUSES:
        raise ValidationError("status", status, f"must be one of {', '.join(ACTION_STATUSES)} or None")
    with ledger.read(check_tenant(tenant)) as reader:
        return [Action.from_row(row) for row in reader.actions(status, limit)]


def actions_of_thread(ledger: Ledger, tenant: str, thread_id: str, limit: int) -> list[Action]:
    """The actions recorded for a checkpoint thread, in the order they began."""
    thread = check_name(thread_id, "thread_id")
    with ledger.read(check_tenant(tenant)) as reader:
        return [Action.from_row(row) for row in reader.actions_of_thread(thread, limit)]


def _update(ledger: Ledger, tenant: str, key: str, change: Callable[[ActionRow], None]) -> None:
    def work(txn: WriteTransaction) -> None:
        row = txn.action(key)
        assert row is not None, "an action's intent is committed before anything updates it"
        change(row)
        txn.update_action(row)

    ledger.run_write(tenant, work)


def _finish(ledger: Ledger, tenant: str, key: str, result: Any) -> Any:
    """Record the outcome. A result that is not JSON is still an outcome: the action is
    done, the result is not kept, and the error says why."""
    try:
        text: str | None = None if result is None else canonical_json(result, "result", MAX_VALUE_BYTES)
        error = None
    except SgamError as exc:
        text, error = None, f"result not recorded: {exc.message}"

    def done(row: ActionRow) -> None:
        row.status, row.result, row.error, row.finished_at = "done", text, error, ledger.now()

    _update(ledger, tenant, key, done)
    return result


def _attempt_again(ledger: Ledger, tenant: str, key: str) -> None:
    def again(row: ActionRow) -> None:
        row.attempts += 1

    _update(ledger, tenant, key, again)


def _note_error(ledger: Ledger, tenant: str, key: str, exc: BaseException) -> None:
    """A call that raised may still have reached the destination: it stays in doubt."""
    message = f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS].replace("\x00", "")

    def note(row: ActionRow) -> None:
        row.error = message

    try:
        _update(ledger, tenant, key, note)
    except SgamError:
        pass  # the call's own error matters more; the intent already says "in doubt"
