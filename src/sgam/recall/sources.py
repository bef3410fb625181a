"""The ledger as a retrieval signal: the turns a relevant fact was read from lead the
evidence.

A fact the question asks about ("where does Mira live?" -> ``mira.city``) cites the
episode it came from, and that turn is the evidence for it even when it shares no word
with the question ("Signed the lease on a flat in Porto today"): search alone would rank
it low or not at all. So the source turns of the facts recall shows come first, in the
facts' order (current versions, then the versions they replaced); a source that search
did not return is read from the ledger under the same limits as search (it occurred by
``at``, was recorded by ``known_at``, is still readable) and the same scope (revoked
consent, one episode per lineage)."""

from __future__ import annotations

from collections.abc import Sequence

from .._core.time import from_micros
from ..search import EvidenceHit
from ..search.scope import in_scope
from ..store import Reader

PULLED_SCORE = 0.0  # a source turn search did not return has no search score


def sources_first(
    reader: Reader, hits: Sequence[EvidenceHit], sources: Sequence[str], *, at: int, known_at: int | None,
    revoked: set[str], limit: int,
) -> list[EvidenceHit]:
    """``hits`` (scoped, best first) with the ``sources`` in front, at most ``limit``."""
    wanted = list(dict.fromkeys(sources))
    if not wanted:
        return list(hits)[:limit]
    returned = {hit.episode_id: hit for hit in hits}
    lead: list[EvidenceHit] = []
    for episode_id in wanted:
        if episode_id in returned:
            lead.append(returned[episode_id])
            continue
        row = reader.episode(episode_id)
        if (row is None or not row.readable or row.occurred_at > at
                or (known_at is not None and row.recorded_at > known_at)):
            continue
        lead.append(EvidenceHit(row.episode_id, from_micros(row.occurred_at), row.speaker, row.session, row.text,
                                PULLED_SCORE, -1))
    led = set(wanted)
    return in_scope(reader, [*lead, *(hit for hit in hits if hit.episode_id not in led)], revoked)[:limit]
