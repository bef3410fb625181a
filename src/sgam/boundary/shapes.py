"""Results whose JSON is not their record's fields: one shape on every surface.

A recall leaves the CLI (``--json``), the HTTP API and MCP as the same object: the
question, the fenced ``context`` a model reads, and the items in it split by kind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .encode import to_json

if TYPE_CHECKING:
    from ..recall import RecallResult


def recall_json(result: RecallResult) -> dict[str, Any]:
    """``{question, context, facts, documents, evidence, tokens, budget, dropped}``."""
    def of(kind: str) -> list[Any]:
        return [to_json(item) for item in result.items if item.kind == kind]

    return {"question": result.question, "context": result.text, "facts": of("fact"), "documents": of("document"),
            "evidence": of("evidence"), "tokens": result.tokens, "budget": result.budget, "dropped": result.dropped}
