"""Checkpoint threads inside erasure: a thread keeps copies of what its run read.

A thread that names an erased subject (in its checkpoints' metadata ``subjects``) is
erased whole. A thread whose state or pending writes hold an erased episode's text goes
back to before it: in each namespace, the checkpoints from the oldest holding the text
on are erased (each later one was built on it) with their pending writes, and a pending
write holding it on an earlier checkpoint is erased with the others of that checkpoint
(their tasks run again on resume). The graph resumes from the last checkpoint before
the text, as if the run had never seen it; a thread with no checkpoint left is erased
whole. An episode whose text a ``keep_facts`` expiry drops is reached the same way.
"""

from __future__ import annotations

from ..store import WriteTransaction
from .participants import Erased, Participant

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
