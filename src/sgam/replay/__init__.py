"""Replay scenarios (format 1): load them, run them against a fresh store, report."""

from .context import Failure, ReplayContext, ScenarioResult, StepHandler
from .loader import Scenario, ScenarioFileError, Step, load_path, load_scenario
from .runner import run_scenario, standard_steps

__all__ = [
    "Failure",
    "ReplayContext",
    "Scenario",
    "ScenarioFileError",
    "ScenarioResult",
    "Step",
    "StepHandler",
    "load_path",
    "load_scenario",
    "run_scenario",
    "standard_steps",
]
