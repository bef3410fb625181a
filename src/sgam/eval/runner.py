"""Run evaluation instances through ``Memory``: each instance ingested into its own
tenant (by default its own SQLite file), each question searched once per configuration
through ``Memory.search_many`` — the same ranking a user's ``search`` gets."""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

from .._core.errors import ValidationError
from ..memory.facade import Memory
from ..search import Embedder, SearchConfig, resolve_config
from .grid import GRID
from .outcomes import Outcome, cross_validate, outcome, report

SEARCH_DEPTH = 50
PROGRESS_LINES = 20

Record = dict[str, Any]


@dataclass(frozen=True, slots=True)
class EvalQuestion:
    """A question with the episode ids and session ids that hold its answer."""

    text: str
    category: str
    evidence: list[str]
    sessions: set[str]


@dataclass(frozen=True, slots=True)
class EvalInstance:
    """Episodes ingested into one tenant and the questions asked of them; ``group`` is
    what cross-validation holds out (a conversation, a block of instances)."""

    tenant: str
    group: str
    episodes: list[dict[str, Any]]
    questions: list[EvalQuestion]
    now: datetime | None = None
    session_of: dict[str, str] = field(default_factory=dict)


def _fixed(moment: datetime) -> datetime:
    return moment


def tenant_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text) or "instance"


def run_instances(
    instances: Sequence[EvalInstance], configs: Mapping[str, SearchConfig], *, embedder: Embedder | None,
    db: str | None = None, progress: Callable[[str], None] | None = None,
) -> dict[str, list[Outcome]]:
    """Outcomes of every question under every configuration."""
    results: dict[str, list[Outcome]] = {name: [] for name in configs}
    every = max(1, len(instances) // PROGRESS_LINES)
    with tempfile.TemporaryDirectory(prefix="sgam-eval-") as folder:
        for number, instance in enumerate(instances, start=1):
            url = db or f"sqlite:///{Path(folder) / (instance.tenant + '.db')}"
            with Memory(url, embedder=embedder) as memory:
                if instance.now is not None:
                    memory.clock = partial(_fixed, instance.now)
                if memory.episodes(instance.tenant, limit=1):
                    raise ValidationError("db", instance.tenant, "already holds this tenant: use an empty store")
                memory.add_episodes(instance.tenant, instance.episodes)
                for question in instance.questions:
                    found = memory.search_many(instance.tenant, question.text, configs, limit=SEARCH_DEPTH)
                    for name, hits in found.items():
                        ranked = [hit.episode_id for hit in hits]
                        sessions = list(dict.fromkeys(instance.session_of.get(i, "") for i in ranked))
                        results[name].append(outcome(instance.group, question.category, ranked, sessions,
                                                     question.evidence, question.sessions))
            if progress is not None and (number % every == 0 or number == len(instances)):
                progress(f"{number}/{len(instances)} {instance.tenant}: {len(instance.episodes)} episodes, "
                         f"{len(instance.questions)} questions")
    return results


def require_questions(instances: Sequence[EvalInstance], path: Path, skipped: int = 0) -> None:
    """A file with no question to score is refused: a report of zeros would read as a
    retrieval that found nothing, not as a file that asked nothing."""
    if not any(instance.questions for instance in instances):
        held = f"{len(instances)} conversation(s)" + (
            f", {skipped} question(s) skipped for evidence that names no turn" if skipped else "")
        raise ValidationError("path", str(path), f"holds no question to score ({held})")


def evaluate_instances(
    instances: list[EvalInstance], *, skipped: int, embedder: Embedder | None, config: SearchConfig | str | None,
    progress: Callable[[str], None] | None, db: str | None, cv: bool, grid: Mapping[str, SearchConfig] | None,
    per: str,
) -> Record:
    """The shared body of every evaluation: baselines from the same run, and either one
    configuration's figures or the cross-validated ones."""
    started = time.perf_counter()
    baselines = {"bm25": resolve_config("keyword")}
    if embedder is not None:
        baselines["vector"] = resolve_config("vector")
    chosen = dict(grid if grid is not None else GRID) if cv else {"sgam": resolve_config(config)}
    runs = run_instances(instances, {**chosen, **{f"baseline {n}": c for n, c in baselines.items()}},
                         embedder=embedder, db=db, progress=progress)
    base = {name: runs.pop(f"baseline {name}") for name in baselines}
    if cv:
        result: Record = {"mode": "cv", "questions": sum(len(i.questions) for i in instances), "seconds": 0.0,
                          **cross_validate(runs, base, per)}
    else:
        result = {"questions": 0, "seconds": 0.0, **report(runs["sgam"], per)}
        result.update({f"baseline_{name}": report(outcomes, per) for name, outcomes in base.items()})
    result["seconds"] = round(time.perf_counter() - started, 2)
    result["skipped"] = skipped
    return result
