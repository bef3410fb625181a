"""Episodes as every surface reads them: recorded, not erased, not past their deadline,
and not about a subject whose consent is revoked for the read's purpose; each with the
episodes it was made from.

``Memory`` checks the arguments and calls these with checked values.
"""

from __future__ import annotations

from .._core.errors import NotFoundError
from .._core.model import Episode
from .._core.purpose import consent_uses
from ..search.scope import about_revoked
from ..store import EpisodeRow, Reader
from .records import sources_of, to_episode
from .relations import consent_book
from .service import Ledger


def episode(ledger: Ledger, tenant: str, episode_id: str, scope: str | None) -> Episode | None:
    """The episode if it can be read, else None."""
    with ledger.read(tenant, "episode") as reader:
        row = reader.episode(episode_id)
        if row is None or not row.readable or _hidden(reader, [row], scope):
            return None
        return to_episode(row, sources_of(reader, [row]).get(row.episode_id, ()))


def episodes(
    ledger: Ledger, tenant: str, session: str | None, limit: int, newest_first: bool, scope: str | None,
) -> list[Episode]:
    """Up to ``limit`` readable episodes (of ``session``), in recorded order or newest first."""
    with ledger.read(tenant, "episodes") as reader:
        rows = [row for row in reader.episodes(session, limit, newest_first) if row.readable]
        return _readable(reader, rows, scope)


def derived_episodes(ledger: Ledger, tenant: str, episode_id: str, scope: str | None) -> list[Episode]:
    """The readable episodes made directly from ``episode_id``; NotFoundError if it cannot
    be read itself."""
    with ledger.read(tenant, "derived_episodes") as reader:
        source = reader.episode(episode_id)
        if source is None or not source.readable or _hidden(reader, [source], scope):
            raise NotFoundError(f"no episode {episode_id!r}", field="id", value=episode_id)
        rows = [row for row in map(reader.episode, reader.derived_of([episode_id]))
                if row is not None and row.readable]
        return _readable(reader, rows, scope)


def _readable(reader: Reader, rows: list[EpisodeRow], scope: str | None) -> list[Episode]:
    """``rows`` less those about a subject whose consent is revoked, as public episodes."""
    hidden = _hidden(reader, rows, scope)
    rows = [row for row in rows if row.episode_id not in hidden]
    sources = sources_of(reader, rows)
    return [to_episode(row, sources.get(row.episode_id, ())) for row in rows]


def _hidden(reader: Reader, rows: list[EpisodeRow], purpose: str | None) -> set[str]:
    """Ids of ``rows`` about a subject whose consent is revoked for ``purpose``."""
    revoked = consent_book(reader, consent_uses(purpose)).revoked_subjects(purpose)
    return about_revoked(reader, [(row.episode_id, row.speaker, row.text) for row in rows], revoked)
