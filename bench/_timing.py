"""Latency of a call repeated in one process, as the benchmarks print it."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(call: Callable[[], object], reads: int) -> dict[str, float]:
    """p50 and p99 of ``reads`` calls, in microseconds."""
    samples = []
    for _ in range(reads):
        started = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - started) / 1000)
    samples.sort()
    return {"p50_us": round(statistics.median(samples), 1), "p99_us": round(samples[int(len(samples) * 0.99)], 1)}


def timed_in_turn(calls: dict[str, Callable[[], object]], reads: int) -> dict[str, dict[str, float]]:
    """``timed`` for several calls at once, called in turn (one of each per round), so that
    a change of the machine's load falls on all of them alike: their ratios are what a
    noisy machine still measures."""
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(reads):
        for name, call in calls.items():
            started = time.perf_counter_ns()
            call()
            samples[name].append((time.perf_counter_ns() - started) / 1000)
    found = {}
    for name, taken in samples.items():
        taken.sort()
        found[name] = {"p50_us": round(statistics.median(taken), 1), "p99_us": round(taken[int(len(taken) * 0.99)], 1)}
    return found
