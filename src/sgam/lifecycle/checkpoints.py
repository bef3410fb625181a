"""Checkpoint threads inside erasure: a thread keeps copies of what its run read.

A thread that names an erased subject (in its checkpoints' metadata ``subjects``) is
erased whole. A thread whose state or pending writes hold an erased episode's text goes
back to before it: in each namespace, the checkpoints from the oldest holding the text
on are erased (each later one was built on it) with their pending writes, and a pending
write holding it on an earlier checkpoint is erased with the others of that checkpoint
(their tasks run again on resume). The graph resumes from the last checkpoint before
the text, as if the run had never seen it; a thread with no checkpoint left is erased
whole. An episode whose text a ``keep_facts`` expiry drops is reached the same way.

A thread is also erased as the target of an erasure of its own (``forget_thread``), and
a purge applies each thread's retention class (``settle_threads``) through the same
participant (``CheckpointThreads.retain``), so erasure and expiry never name threads.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..store import WriteTransaction
from .erasure import audit
from .participants import Erased, Participant, Reach, Retained

MAX_THREADS = 1_000_000
"""The most threads one retention pass visits."""

MIN_QUOTED_LINE = 12
"""A line of an episode shorter than this names too little to say a state holds it."""


class CheckpointThreads(Participant):
    """What checkpoint memory keeps of subjects and episodes."""

    def subjects_erased(self, txn: WriteTransaction, names: list[str]) -> Erased | None:
        checkpoints = txn.checkpoints()
        threads = list(dict.fromkeys(thread for name in names for thread in checkpoints.threads_naming(name)))
        for thread_id in threads:
            checkpoints.delete_thread(thread_id)
        return Erased(threads=len(threads))

    def episodes_erased(self, txn: WriteTransaction, episode_ids: list[str]) -> Erased | None:
        return Erased(threads=forget_texts(txn, episode_ids))

    def texts_dropped(self, txn: WriteTransaction, episode_ids: list[str]) -> None:
        forget_texts(txn, episode_ids)

    def retain(self, txn: WriteTransaction, now: int, reach: Reach, call: str) -> Retained | None:
        settled = settle_threads(txn, now, reach, call)
        return Retained(len(settled.erased), len(settled.pruned))


def quoted_lines(text: str) -> list[str]:
    """The text whole and each of its lines long enough to name it."""
    lines = [line.strip() for line in text.splitlines() if len(line.strip()) >= MIN_QUOTED_LINE]
    return list(dict.fromkeys([text, *lines]))


def forget_texts(txn: WriteTransaction, episode_ids: list[str]) -> int:
    """Take every thread back to before it held the text of any of ``episode_ids``; how
    many threads were erased whole."""
    texts = [row.text for episode_id in episode_ids if (row := txn.episode(episode_id)) and row.text]
    needles = [line.encode() for text in texts for line in quoted_lines(text)]
    checkpoints = txn.checkpoints()
    first, written = checkpoints.holding(needles)
    for thread_id, checkpoint_ns, checkpoint_id in written:
        checkpoints.delete_pending_writes(thread_id, checkpoint_ns, checkpoint_id)
    for thread_id, checkpoint_ns, checkpoint_id in first:
        checkpoints.delete_from(thread_id, checkpoint_ns, checkpoint_id)
    touched = dict.fromkeys(thread for thread, _, _ in [*first, *written])
    emptied = [thread for thread in touched if not checkpoints.has_checkpoints(thread)]
    for thread_id in emptied:
        checkpoints.delete_thread(thread_id)
    return len(emptied)


def forget_thread(
    txn: WriteTransaction, thread_id: str, now: int, reach: Reach, call: str, action: str = "forget_thread",
) -> Erased:
    """Erase a checkpoint thread whole: every checkpoint, pending write and subject link.
    The audit entry names it by a keyed digest, like every erased target."""
    gone = txn.checkpoints().delete_thread(thread_id)
    erased = Erased(threads=1 if gone else 0)
    audit(txn, now, action, call, reach.digests.of(txn.tenant, "thread", thread_id), erased)
    return erased


def expire_thread(txn: WriteTransaction, thread_id: str, deadline: int, now: int, reach: Reach, call: str) -> bool:
    """Erase a thread retention found expired at ``deadline``, unless a checkpoint was
    stored since (a put between the sweep's listing and this): that keeps it, nothing
    erased or audited. Audited as ``expire_thread`` when it goes."""
    if not txn.checkpoints().delete_expired_thread(thread_id, deadline):
        return False
    audit(txn, now, "expire_thread", call, reach.digests.of(txn.tenant, "thread", thread_id), Erased(threads=1))
    return True


@dataclass
class ThreadsSettled:
    """What checkpoint retention did to a tenant's threads, by thread id."""

    erased: list[str] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)


def settle_threads(txn: WriteTransaction, now: int, reach: Reach, call: str) -> ThreadsSettled:
    """Apply each checkpoint thread's retention class at ``now``. A thread whose newest
    checkpoint is past the class's ttl is erased whole (``on_expiry: erase``; audited as
    ``expire_thread``; a thread that got a checkpoint since it was listed stays) or pruned
    to what a resume needs (``keep_facts``); a live thread
    whose older checkpoints are past it is pruned to its newest checkpoint per namespace,
    with the saver's own prune, never by deleting rows by age. Idempotent."""
    classes = {row.name: row for row in txn.retention_classes() if row.ttl is not None}
    done = ThreadsSettled()
    if not classes:
        return done
    records = txn.checkpoints()
    for thread in records.threads(MAX_THREADS):
        rule = classes.get(thread.retention)
        if rule is None or rule.ttl is None or thread.first_at is None or thread.last_at is None:
            continue
        deadline = now - rule.ttl
        if thread.last_at <= deadline and rule.on_expiry == "erase":
            if expire_thread(txn, thread.thread_id, deadline, now, reach, call):
                done.erased.append(thread.thread_id)
        elif thread.first_at <= deadline and thread.checkpoints > 1 and records.keep_latest(thread.thread_id):
            done.pruned.append(thread.thread_id)
    return done
