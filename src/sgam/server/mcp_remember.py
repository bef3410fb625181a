"""``remember`` for an agent that retries: the same id and text again is a no-op.

A model leaves ``at`` out and its client retries a call that timed out. Were ``at``
"now" on each attempt, the retry would carry another time and be refused as a
conflict with the episode the first attempt recorded. So without an ``at`` an episode
already recorded under the id keeps its time: the same text (speaker, session,
retention) is the same episode, answered as the first call was, and never extracted
twice; other content under the id is still a conflict.
"""

from __future__ import annotations

from typing import Any

from .._core.model import Episode
from ..boundary import to_json
from ..extraction import Extraction, Outcome, Remembered
from ..memory.asynchronous import AsyncMemory


def _same(episode: Episode, text: str, speaker: str | None, session: str | None, retention: str) -> bool:
    return (episode.text, episode.speaker, episode.session, episode.retention, episode.kind) == (
        text, speaker, session, retention, "message")


async def _extracted(memory: AsyncMemory, tenant: str, episode: str) -> Extraction | None:
    """The episode's last extraction that succeeded, if any."""
    found = await memory.extractions(tenant, episode=episode, limit=1)
    return found[0] if found and found[0].error is None else None


async def remember_once(
    memory: AsyncMemory, tenant: str, id: str, text: str, at: str | None, *, speaker: str | None,
    session: str | None, retention: str, extract: bool,
) -> Remembered:
    moment: Any = at
    if at is None:
        existing = await memory.episode(tenant, id)
        if existing is not None and _same(existing, text, speaker, session, retention):
            moment = existing.at
            done = await _extracted(memory, tenant, id) if extract else None
            if done is not None:
                return Remembered(existing, done, False)
        else:
            moment = memory.memory.clock()
    return await memory.remember(tenant, id, moment, text, speaker=speaker, session=session, extract=extract,
                                 retention=retention)


def remembered_json(remembered: Remembered) -> dict[str, Any]:
    """The episode, whether it was queued, and how many facts extraction wrote or held."""
    extraction = remembered.extraction
    written = 0 if extraction is None else extraction.count(Outcome.ACCEPTED) + extraction.count(Outcome.PROMOTED)
    held = 0 if extraction is None else extraction.count(Outcome.PENDING) + extraction.count(Outcome.BUFFERED)
    return {"episode": to_json(remembered.episode), "queued": remembered.queued, "written": written, "held": held}
