"""Participants: the features that keep data erasure and expiry must reach.

Erasure removes data so that every read answers as if it had never been recorded; a
feature that keeps copies (document revisions built on an episode, extraction records
quoting a reply) must go with it, in the same unit of work. Erasure does not know those
features: each one implements the hooks for what it keeps, and the facade hands the
standard set to the ledger (``Reach``), so a new feature joins erasure without erasure
importing it. Every hook runs inside the tenant's write transaction, after the ledger's
own rows are gone, and returns what it removed (``Erased``) where that is counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .._core.secret import Digests
from ..store import WriteTransaction


@dataclass(slots=True)
class Erased:
    """Counts of what one erasure or expiry pass removed."""

    operations: int = 0
    episodes: int = 0
    keys: int = 0
    texts: int = 0
    items: int = 0
    """LangGraph store items expired with their history."""
    documents: int = 0
    """Document revisions expired or erased with the episode they name."""
    threads: int = 0
    """Checkpoint threads erased whole (by name, or as threads about an erased subject)."""
    quoted: list[str] = field(default_factory=list)
    """What a stored response may quote of what a participant removed (a document's path
    or text): the erasure empties the responses naming it."""

    def add(self, other: Erased) -> None:
        self.operations += other.operations
        self.episodes += other.episodes
        self.keys += other.keys
        self.texts += other.texts
        self.items += other.items
        self.documents += other.documents
        self.threads += other.threads
        self.quoted += other.quoted

    @property
    def anything(self) -> bool:
        return bool(self.operations or self.episodes or self.keys or self.texts or self.items or self.documents
                    or self.threads)

    def detail(self) -> str:
        counts = {"operations": self.operations, "episodes": self.episodes, "keys": self.keys, "texts": self.texts}
        counts.update({name: n for name, n in (("items", self.items), ("revisions", self.documents),
                                               ("threads", self.threads)) if n})
        return json.dumps(counts)


class Participant:
    """A feature's part in erasure and expiry; each hook does nothing unless overridden."""

    def episodes_erased(self, txn: WriteTransaction, episode_ids: list[str]) -> Erased | None:
        """``episode_ids`` (an erased episode and its derivatives) are being erased."""
        return None

    def texts_dropped(self, txn: WriteTransaction, episode_ids: list[str]) -> None:
        """``episode_ids`` lose their text (a ``keep_facts`` expiry); their facts stay."""

    def subjects_erased(self, txn: WriteTransaction, names: list[str]) -> Erased | None:
        """Every name in ``names`` is one subject being erased whole."""
        return None

    def values_erased(self, txn: WriteTransaction, subject: str, attribute: str, gone: set[str]) -> None:
        """The canonical values ``gone`` no longer hold anywhere in the key's log."""

    def names_erased(self, txn: WriteTransaction, names: list[str], now: int) -> None:
        """An erasure removed what ``names`` name: subjects, episode ids, and what the
        participants' other hooks removed that a copy may quote (``Erased.quoted``). Runs
        after every other hook of the erasure, for copies that quote what others kept."""

    def settle(self, txn: WriteTransaction, now: int, reach: Reach, call: str) -> Erased | None:
        """Expire what the feature keeps past its deadline at ``now``; idempotent. Runs
        before the ledger's own expiry, with ``reach`` for erasing episodes."""
        return None

    def retain(self, txn: WriteTransaction, now: int, reach: Reach, call: str) -> Retained | None:
        """Apply the feature's retention classes at ``now`` where no deadline is stored
        (what a purge applies, not every call: checkpoint threads); idempotent."""
        return None


@dataclass(frozen=True)
class Reach:
    """What an erasure or expiry reaches beyond the ledger's own rows: the digests that
    name a target in the audit log and tombstones, and the participants."""

    digests: Digests
    participants: tuple[Participant, ...] = ()

    def gather(self, hook: Callable[[Participant], Erased | None]) -> Iterable[Erased]:
        """Run ``hook`` on every participant, in order; what each removed."""
        for participant in self.participants:
            erased = hook(participant)
            if erased is not None:
                yield erased

    def names_erased(self, txn: WriteTransaction, names: list[str], now: int) -> None:
        """Tell every participant what an erasure removed by name (``Participant.names_erased``)."""
        for participant in self.participants:
            participant.names_erased(txn, names, now)


@dataclass(slots=True)
class Retained:
    """What a purge's retention pass (``Participant.retain``) did beyond deadlines."""

    threads_erased: int = 0
    """Checkpoint threads whose class erases them, past its ttl: erased whole."""
    threads_pruned: int = 0
    """Checkpoint threads pruned to what a resume needs."""

    def add(self, other: Retained) -> None:
        self.threads_erased += other.threads_erased
        self.threads_pruned += other.threads_pruned
