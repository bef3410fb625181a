"""From conversation to memory: models propose candidate updates, policy decides.

``Memory.remember``/``Memory.extract`` run it on the hot path; ``Worker`` drains the
queue in the background; ``sgam.extraction.replay`` plugs ``model_reply`` and
``extract`` into replay scenarios.
"""

from __future__ import annotations

from ..ledger.service import Ledger
from .candidates import Candidate, Change, Reply, parse_reply, response_schema
from .clients import (
    ClientSettings,
    ModelClient,
    ModelError,
    ModelRequest,
    ModelResponse,
    OpenAIClient,
    ScriptedClient,
)
from .extractor import extract_episode, get_extraction, record, require_episode
from .policy import ExtractionPolicy
from .records import Decision, Extraction, HeldCandidate, Outcome, Remembered
from .review import confirm, reject
from .worker import Worker


def extract(
    ledger: Ledger,
    tenant: str,
    episode: str,
    *,
    client: ModelClient | None = None,
    policy: ExtractionPolicy | None = None,
) -> Extraction:
    """Extract one recorded episode with ``client`` (default: ``OpenAIClient`` configured
    from the environment now) under ``policy`` (default: ``ExtractionPolicy.from_env()``)."""
    policy = policy if policy is not None else ExtractionPolicy.from_env()
    if client is not None:
        return extract_episode(ledger, tenant, episode, client, policy)
    require_episode(ledger, tenant, episode)  # an unknown episode is the first thing to say
    try:
        http = OpenAIClient()
    except ModelError as exc:  # no model configured: recorded and queued, like a model that is down
        record(ledger, tenant, episode, None, lambda txn: [], exc, None)
        raise
    with http:
        return extract_episode(ledger, tenant, episode, http, policy)


__all__ = [
    "Candidate",
    "Change",
    "ClientSettings",
    "Decision",
    "Extraction",
    "ExtractionPolicy",
    "HeldCandidate",
    "ModelClient",
    "ModelError",
    "ModelRequest",
    "ModelResponse",
    "OpenAIClient",
    "Outcome",
    "Remembered",
    "Reply",
    "ScriptedClient",
    "Worker",
    "confirm",
    "extract",
    "extract_episode",
    "get_extraction",
    "parse_reply",
    "reject",
    "response_schema",
]
