"""Replay scenarios (format 1): load them, run them against a fresh store, report."""

from .loader import Scenario, ScenarioFileError, Step, load_path, load_scenario
from .runner import Failure, ScenarioResult, StepHandler, register_operation, run_scenario

__all__ = [
    "Failure",
    "Scenario",
    "ScenarioFileError",
    "ScenarioResult",
    "Step",
    "StepHandler",
    "load_path",
    "load_scenario",
    "register_operation",
    "run_scenario",
]

# registers model_reply, extract, confirm and reject with the runner
from ..extraction import replay as _extraction_replay  # noqa: F401
