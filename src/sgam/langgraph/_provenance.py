"""Who is writing: the LangGraph run calling the store, when there is one."""

from __future__ import annotations

from typing import Any

from langgraph.config import get_config
from langgraph.runtime import get_runtime


def current_run() -> dict[str, str]:
    """``thread_id``/``run_id`` (and the checkpoint and task) of the LangGraph run this
    call happens in; empty outside a run."""
    try:
        config: Any = get_config()
    except RuntimeError:
        return {}
    found: dict[str, Any] = {
        "thread_id": (config.get("configurable") or {}).get("thread_id"),
        "run_id": config.get("run_id"),
    }
    try:
        info = get_runtime().execution_info
    except (RuntimeError, AttributeError, KeyError):
        info = None
    if info is not None:
        found.update(checkpoint_id=info.checkpoint_id, task_id=info.task_id)
        found["thread_id"] = found["thread_id"] or info.thread_id
        found["run_id"] = found["run_id"] or info.run_id
    return {key: str(value) for key, value in found.items() if value is not None}
