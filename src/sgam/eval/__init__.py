"""Retrieval evaluations run through the same search path users call."""

from __future__ import annotations

from .locomo import evaluate_locomo, load_locomo
from .longmemeval import evaluate_longmemeval, load_longmemeval

__all__ = ["evaluate_locomo", "evaluate_longmemeval", "load_locomo", "load_longmemeval"]
