"""Recall: the smallest cited context for a question, exact state first."""

from __future__ import annotations

from ._model import Citation, RecallItem, RecallResult
from .service import check_budget, recall
from .tokens import estimate_tokens

__all__ = ["Citation", "RecallItem", "RecallResult", "check_budget", "estimate_tokens", "recall"]
