"""Retrieval evaluations run through the same search path users call."""

from __future__ import annotations

from .locomo import evaluate_locomo, load_locomo

__all__ = ["evaluate_locomo", "load_locomo"]
