"""The passport story from raw text to the ledger, through the scripted model.

``sgam demo`` (``sgam.cli.demo``) calls ``demo_extraction`` and prints what it returns;
library users can run it against their own ``Memory`` to see the path end to end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._core.time import format_timestamp

if TYPE_CHECKING:
    from ..extraction import Extraction
    from ..memory.facade import Memory

PASSPORT_EPISODES: list[tuple[str, str, str]] = [
    ("e1", "2026-06-01T09:00:00Z", "Mira prefers concise answers. Her passport deadline is 2026-07-15."),
    ("e2", "2026-06-03T10:00:00Z", "Mira corrected the deadline. It is now 2026-06-30."),
]

PASSPORT_REPLIES: list[dict[str, Any]] = [
    {
        "updates": [
            {
                "evidence": "Mira prefers concise answers.",
                "subject": "mira",
                "attribute": "answer_style",
                "current_value": None,
                "change": "new",
                "value": "concise",
                "valid_from": None,
                "confidence": 0.9,
            },
            {
                "evidence": "Her passport deadline is 2026-07-15.",
                "subject": "mira",
                "attribute": "passport_deadline",
                "current_value": None,
                "change": "new",
                "value": "2026-07-15",
                "valid_from": None,
                "confidence": 0.95,
            },
        ]
    },
    {
        "updates": [
            {
                "evidence": "It is now 2026-06-30.",
                "subject": "mira",
                "attribute": "passport_deadline",
                "current_value": "2026-07-15",
                "change": "update",
                "value": "2026-06-30",
                "valid_from": None,
                "confidence": 0.95,
            },
            # a hostile or confused model: a quote that is not in the episode is rejected
            {
                "evidence": "Mira moved to Oslo.",
                "subject": "mira",
                "attribute": "city",
                "tenant": "globex",
                "current_value": None,
                "change": "new",
                "value": "Oslo",
                "valid_from": None,
                "confidence": 0.8,
            },
        ]
    },
]


@dataclass(frozen=True, slots=True)
class DemoStep:
    """One episode of the story: its text, the model's raw reply and the extraction."""

    episode: str
    text: str
    extraction: Extraction


def demo_extraction(
    memory: Memory,
    tenant: str = "acme",
    *,
    echo: Callable[[str], None] | None = None,
    before_episode: Callable[[str], None] | None = None,
) -> list[DemoStep]:
    """Remember the two raw passport episodes, extracting each with the scripted model
    (replies in ``PASSPORT_REPLIES``), and print every candidate and its decision through
    ``echo`` (e.g. ``print`` or a Rich console's ``print``). ``before_episode`` is called
    with each episode id first, e.g. to move a story clock forward. Returns the steps; the ledger
    then holds passport_deadline 2026-06-30 from e2, after 2026-07-15 from e1."""
    from ..extraction import ExtractionPolicy, ScriptedClient

    memory.declare(tenant, "passport_deadline", "date")
    client = ScriptedClient.of(PASSPORT_REPLIES)
    steps = []
    for episode_id, at, text in PASSPORT_EPISODES:
        if before_episode is not None:
            before_episode(episode_id)
        remembered = memory.remember(
            tenant, episode_id, at, text, client=client, policy=ExtractionPolicy.off()
        )
        assert remembered.extraction is not None
        steps.append(DemoStep(episode_id, text, remembered.extraction))
        if echo is not None:
            echo(f"episode {episode_id} ({at}): {text}")
            for decision in remembered.extraction.decisions:
                c = decision.candidate
                echo(
                    f"  candidate {c['subject']}.{c['attribute']} = {c['value']!r} ({c['change']}, "
                    f"evidence {c['evidence']!r})"
                )
                echo(
                    f"    -> {decision.outcome.value}"
                    + (f" ({decision.effect})" if decision.effect else "")
                    + (f": {decision.reason}" if decision.reason else "")
                )
    if echo is not None:
        for fact in memory.history(tenant, "mira", "passport_deadline"):
            end = format_timestamp(fact.valid_to) if fact.valid_to else "open"
            echo(
                f"ledger: mira.passport_deadline = {fact.value} [{format_timestamp(fact.valid_from)}, {end}) "
                f"source {fact.source}"
            )
    return steps
