"""What a replay step handler works with: the memory, the scenario's clock, failures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .._core.time import utc_now
from ..memory.facade import Memory
from .loader import Step


class ReplayClock:
    """The wall clock until a ``clock`` step fixes the instant."""

    def __init__(self) -> None:
        self.fixed: datetime | None = None

    def __call__(self) -> datetime:
        return self.fixed if self.fixed is not None else utc_now()


@dataclass(slots=True)
class Failure:
    step: int
    expected: Any
    actual: Any


@dataclass(slots=True)
class ScenarioResult:
    file: str
    name: str
    failures: list[Failure] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file, "name": self.name, "passed": self.passed,
            "failures": [{"step": f.step, "expected": f.expected, "actual": f.actual} for f in self.failures],
        }


@dataclass(slots=True)
class ReplayContext:
    """What a step handler may use; extensions keep their own state in ``extras``."""

    memory: Memory
    clock: ReplayClock
    failures: list[Failure]
    extras: dict[str, Any] = field(default_factory=dict)

    def fail(self, step: Step, expected: Any, actual: Any) -> None:
        self.failures.append(Failure(step.number, expected, actual))


StepHandler = Callable[[ReplayContext, Step], None]
