"""The publish-once graph: draft a report, stop for a person's approval before
``publish``, then publish it to an HTTP service through sgam's action ledger.

The checkpointer decides where a run restarts; the action ledger decides whether the
publication already happened. A run killed after the service accepted the report but
before the checkpoint was saved restarts ``publish`` from the top, and ``once`` then
returns the recorded receipt, asks the service (``reconcile``), or refuses with
``ActionInDoubt`` — it never publishes twice.
"""

from __future__ import annotations

from typing import Any, TypedDict

import httpx
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer

from sgam import Memory, Reconciled
from sgam.langgraph import SgamStore


class Report(TypedDict, total=False):
    topic: str
    report: str
    approved: bool
    receipt: dict[str, Any]


def draft(state: Report, runtime: Runtime[None]) -> Report:
    text = f"{state['topic']}: revenue up, costs flat, two hires planned."
    if runtime.store is not None:
        runtime.store.put(("reports", "drafts"), state["topic"], {"text": text})
    return {"report": text}


class Publisher:
    """Publishes through the action ledger; the action key is also the HTTP
    ``Idempotency-Key``, and ``reconcile`` asks the service about an in-doubt key."""

    def __init__(self, memory: Memory, tenant: str, service: str, *, reconcile: bool) -> None:
        self.memory = memory
        self.tenant = tenant
        self.service = service.rstrip("/")
        self.reconcile = reconcile

    def post(self, request: dict[str, Any], key: str) -> dict[str, Any]:
        response = httpx.post(f"{self.service}/reports", json=request, headers={"Idempotency-Key": key}, timeout=120)
        response.raise_for_status()
        receipt: dict[str, Any] = response.json()
        return receipt

    def lookup(self, key: str) -> Reconciled | None:
        response = httpx.get(f"{self.service}/reports/by-key/{key}", timeout=30)
        if response.status_code == 200:
            return Reconciled(True, response.json())
        if response.status_code == 404:
            return Reconciled(False)
        return None  # the service cannot tell: the action stays in doubt

    def __call__(self, state: Report, config: RunnableConfig) -> Report:
        if not state.get("approved"):
            raise PermissionError("publish needs an approval (update_state with approved=True)")
        thread = config["configurable"]["thread_id"]
        request = {"title": state["topic"], "body": state["report"]}
        receipt = self.memory.once(
            self.tenant, f"publish:{thread}", request, lambda key: self.post(request, key),
            reconcile=self.lookup if self.reconcile else None,
        )
        return {"receipt": receipt}


def build(memory: Memory, tenant: str, service: str, checkpointer: Checkpointer, *, reconcile: bool) -> Any:
    builder = StateGraph(Report)
    builder.add_node("draft", draft)
    builder.add_node("publish", Publisher(memory, tenant, service, reconcile=reconcile))
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "publish")
    builder.add_edge("publish", END)
    return builder.compile(checkpointer=checkpointer, store=SgamStore(memory, tenant=tenant),
                           interrupt_before=["publish"])
