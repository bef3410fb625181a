"""A real LangGraph run that stops at ``interrupt()``: draft a report about a subject,
then ask a person to approve it. What the surfaces show of checkpoint memory is tested
on runs like this one, not on hand-written checkpoints."""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from sgam import Memory
from sgam.langgraph import SgamSaver

QUESTION = {"question": "approve the report?", "draft": "Q3 report for Mira <b>draft</b>", "pages": 3}
"""What the run waits for: the value ``interrupt()`` is given."""


class Report(TypedDict):
    topic: str
    draft: str
    approved: bool


def _graph(memory: Memory, tenant: str) -> Any:
    def write(state: Report) -> dict[str, str]:
        return {"draft": f"Q3 report for {state['topic']} <b>draft</b>"}

    def ask(state: Report) -> dict[str, bool]:
        answer = interrupt({**QUESTION, "draft": state["draft"]})
        return {"approved": bool(answer)}

    graph = StateGraph(Report)
    graph.add_node("write", write)
    graph.add_node("ask", ask)
    graph.add_edge(START, "write")
    graph.add_edge("write", "ask")
    graph.add_edge("ask", END)
    return graph.compile(checkpointer=SgamSaver(memory, tenant=tenant))


def config(thread_id: str, subject: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}, "metadata": {"subjects": [subject]}}


def run_until_asked(memory: Memory, tenant: str = "acme", thread_id: str = "report-1",
                    subject: str = "Mira") -> None:
    """Run the graph until it stops at its interrupt, as a LangGraph application does."""
    result = _graph(memory, tenant).invoke({"topic": subject, "draft": "", "approved": False},
                                           config(thread_id, subject))
    assert "__interrupt__" in result  # the run stopped where a person must answer


def answer(memory: Memory, approved: bool, tenant: str = "acme", thread_id: str = "report-1",
           subject: str = "Mira") -> None:
    """Resume the run with the person's answer: it runs to the end."""
    result = _graph(memory, tenant).invoke(Command(resume=approved), config(thread_id, subject))
    assert result["approved"] is approved
