"""``Memory``'s episodes: recording raw episodes (one, or many in one transaction) and
reading them back as consent allows (``sgam.ledger.episode_reads``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._core.errors import ValidationError
from .._core.model import Episode
from .._core.purpose import check_purpose
from .._core.time import Moment
from .._core.values import MAX_BATCH, check_batch, check_limit, check_name, check_optional_name, check_tenant
from ..ledger import episode_reads
from ..ledger.service import Ledger
from ..ledger.write import validate_derived_from, validate_episode
from ..store import EpisodeRow

EPISODE_FIELDS = frozenset({"id", "at", "text", "speaker", "kind", "session", "metadata", "retention", "derived_from"})


class EpisodeCalls:
    """``Memory``'s episodes: a part the facade delegates to, working through the ledger
    service alone."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def add_episode(
        self, tenant: str, id: str, at: Moment, text: str, *, speaker: str | None = None,
        kind: str = "message", session: str | None = None, metadata: dict[str, Any] | None = None,
        retention: str = "default", derived_from: Iterable[str] | None = None,
    ) -> Episode:
        """Record a raw episode of retention class ``retention``, optionally made from
        other episodes (``derived_from``: erasing or expiring them reaches it too).
        Re-recording the same id with the same content is a no-op; with other content, or
        an id that was erased or expired, it is a ConflictError."""
        row = validate_episode(id, at, text, speaker, kind, session, metadata, check_tenant(tenant), retention)
        sources = validate_derived_from(derived_from)
        return self.ledger.add_episodes(tenant, [(row, sources)])[0]

    def add_episodes(self, tenant: str, episodes: Iterable[Mapping[str, Any]]) -> list[Episode]:
        """Record many episodes (mappings with ``add_episode``'s argument names) in one
        transaction, embedded in one batch first; the error names the offending ``episodes[i]``."""
        check_tenant(tenant)
        items = [_episode_row(index, item, tenant) for index, item in enumerate(check_batch(episodes, "episodes"))]
        if len(items) > MAX_BATCH:
            raise ValidationError("episodes", f"<{len(items)} episodes>", f"at most {MAX_BATCH} per batch")
        return self.ledger.add_episodes(tenant, items) if items else []

    def episode(self, tenant: str, id: str, *, purpose: str | None = None) -> Episode | None:
        """The episode if it can be read: recorded, not erased, not past its deadline, and
        not about a subject whose consent is revoked (for ``purpose``, or every purpose)."""
        scope = check_purpose(purpose)
        return episode_reads.episode(self.ledger, check_tenant(tenant), check_name(id, "id"), scope)

    def episodes(
        self, tenant: str, *, session: str | None = None, limit: int = 100, purpose: str | None = None,
        newest_first: bool = False,
    ) -> list[Episode]:
        """Up to ``limit`` readable episodes in recorded order (of a session: by time), or
        the latest ones first (``newest_first``), less those about a subject whose consent
        is revoked (for ``purpose``, or every purpose)."""
        scope = check_purpose(purpose)
        if not isinstance(newest_first, bool):
            raise ValidationError("newest_first", newest_first, "must be true or false")
        check_tenant(tenant)
        return episode_reads.episodes(self.ledger, tenant, check_optional_name(session, "session"), check_limit(limit),
                                      newest_first, scope)

    def derived_episodes(self, tenant: str, id: str, *, purpose: str | None = None) -> list[Episode]:
        """The readable episodes made directly from episode ``id`` (a summary of it, say):
        what erasing or expiring ``id`` reaches next. NotFoundError if ``id`` cannot be read."""
        scope = check_purpose(purpose)
        return episode_reads.derived_episodes(self.ledger, check_tenant(tenant), check_name(id, "id"), scope)


def _episode_row(index: int, item: Mapping[str, Any], tenant: str) -> tuple[EpisodeRow, tuple[str, ...]]:
    """One entry of ``add_episodes``, checked; an error names ``episodes[index]`` and the field."""
    prefix = f"episodes[{index}]."
    if not isinstance(item, Mapping):
        raise ValidationError(f"episodes[{index}]", item, "must be a mapping")
    unknown = set(item) - EPISODE_FIELDS
    if unknown:
        raise ValidationError(f"{prefix}{min(unknown)}", item, "unknown field")
    try:
        return (validate_episode(item.get("id"), item.get("at"), item.get("text"), item.get("speaker"),
                                 item.get("kind", "message"), item.get("session"), item.get("metadata"), tenant,
                                 item.get("retention", "default")),
                validate_derived_from(item.get("derived_from")))
    except ValidationError as exc:
        raise ValidationError(f"{prefix}{exc.field}", exc.value, exc.rule) from None
