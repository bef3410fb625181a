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
