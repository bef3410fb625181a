"""Documents inside the lifecycle: deadlines and erasure reach revisions, chunks and vectors.

A revision is data recorded at an instant, so it is kept for its document's class ttl
after that instant, as an episode is: the old revisions of a document that keeps
changing go one by one, and the document goes with its last revision. A document holds
no facts to keep, so ``keep_facts`` and ``erase`` classes both remove expired revisions.

Erasing an episode reaches the revisions that name it as provenance: each later revision
was built on that text, so the document goes back to its last revision before the first
one naming the episode (its text, path and search chunks), and the rest is deleted. When
nothing comes before, or the path it would return to is now taken, the whole document is
erased. Both run inside the ledger's unit of work, after the document lock, as the
documents' part in erasure and expiry (``DocumentRevisions``, a participant).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..lifecycle.erasure import audit
from ..lifecycle.participants import Erased, Participant, Reach
from ..store import DocumentStore, RevisionRow, WriteTransaction
from .paths import ancestors
from .text import chunks


class DocumentRevisions(Participant):
    """What document memory keeps of episodes: revisions naming them as provenance."""

    def episodes_erased(self, txn: WriteTransaction, episode_ids: list[str]) -> Erased | None:
        quoted: list[str] = []
        return Erased(documents=forget_revisions(txn, episode_ids, quoted), quoted=quoted)

    def settle(self, txn: WriteTransaction, now: int, reach: Reach, call: str) -> Erased | None:
        revisions = expire_documents(txn, now)
        if not revisions:
            return None
        expired = Erased(documents=revisions)
        audit(txn, now, "expire_documents", call, None, expired)
        return expired


def expire_documents(txn: WriteTransaction, now: int) -> int:
    """Remove every revision past its deadline at ``now``; how many went."""
    store = txn.documents()
    if not store.due_documents(now):
        return 0
    store.begin()
    return sum(store.expire_revisions(doc_id, cutoff) for doc_id, cutoff in store.due_documents(now))


def forget_revisions(txn: WriteTransaction, episode_ids: list[str], quoted: list[str]) -> int:
    """Erase the revisions naming any of ``episode_ids`` and those built on them; how many
    went. ``quoted`` gets what a stored response may quote of them and of nothing kept."""
    store = txn.documents()
    if not store.revisions_naming(episode_ids):
        return 0
    store.begin()
    removed = 0
    for doc_id, first in store.revisions_naming(episode_ids):
        row = store.document(doc_id)
        every = store.revisions(doc_id)
        kept = [r for r in every if r.revision < first]
        last = kept[-1] if kept else None
        if row is None or last is None or (last.content is not None and _taken(store, doc_id, last.path)):
            quoted += quoted_by(every)
            removed += store.erase([doc_id])
            continue
        still = set(quoted_by(kept))
        quoted += [needle for needle in quoted_by([r for r in every if r.revision >= first]) if needle not in still]
        removed += store.drop_revisions_from(doc_id, first)
        row.path, row.live, row.content, row.revision = last.path, last.content is not None, last.content, last.revision
        row.size, row.updated_at = 0 if last.content is None else len(last.content.encode()), last.recorded_at
        store.update(row)
        store.replace_chunks(row, [] if row.content is None else chunks(row.content))
    return removed


MIN_QUOTED_LINE = 3
"""A line this short ("}", "--") is in too many responses to say that one quotes it."""


def quoted_by(revisions: Sequence[RevisionRow]) -> list[str]:
    """What a stored response quoting ``revisions`` contains: a path (every response
    about a document names it) or a line of the text (an edit's snippet names no path)."""
    found = dict.fromkeys(revision.path for revision in revisions)
    for revision in revisions:
        for line in (revision.content or "").splitlines():
            if len(line.strip()) >= MIN_QUOTED_LINE:
                found[line.strip()] = None
    return list(found)


def _taken(store: DocumentStore, doc_id: int, path: str) -> bool:
    """Whether another live document holds ``path``, lies below it, or is a parent of it."""
    other = store.live(path)
    return (other is not None and other.doc_id != doc_id) or store.has_under(path) \
        or bool(store.live_paths(ancestors(path)))
