"""Deadlines, enforced: what is past its deadline at ``now`` is handled before anything
reads or writes the tenant, so no read path can return it whether or not a purge ran.

A deadline is a write's ``expires_at`` (a LangGraph store item's deadline is that of
every write of its key, and of its row), or an episode's recording time plus its class's
ttl as the class stands now (redeclaring a class settles the tenant first, so a later,
longer ttl never brings back what had already expired). Expiry reuses erasure: an
expired write is an erased operation; an expired episode of an ``erase`` class is
erased with its derivatives; one of a ``keep_facts`` class loses its text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..store import Backend, WriteTransaction
from .erasure import drop_text, erase_operations, expire_thread, forget_episode
from .participants import Erased, Reach

MAX_ITEMS = 1_000_000


def settle(txn: WriteTransaction, now: int, reach: Reach, call: str) -> Erased:
    """Handle everything of the tenant past its deadline at ``now``, the participants'
    data included; idempotent. The participants settle first: one that erases a ledger
    key whole (a store item) finds its writes' provenance through writes that share its
    deadline, before those writes expire one by one."""
    done = Erased()
    if not txn.lifecycle_due(now):
        return done
    txn.lock_lifecycle()
    for expired in reach.gather(lambda participant: participant.settle(txn, now, reach, call)):
        done.add(expired)
    due = txn.due_operations(now)
    if due:
        done.add(erase_operations(txn, due, now, reach, call))
    for episode_id, on_expiry in txn.due_episodes(now):
        row = txn.episode(episode_id)
        if row is None:
            continue  # erased with a source earlier in this pass
        if on_expiry == "erase":
            done.add(forget_episode(txn, episode_id, now, reach, call, action="expire_episode"))
        elif row.readable:
            done.add(drop_text(txn, episode_id, now, reach, call))
    return done


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
    for thread in records.threads(MAX_ITEMS):
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


def purge(
    backend: Backend, reach: Reach, now: int, tenant: str | None = None,
) -> tuple[int, Erased, ThreadsSettled]:
    """Settle every tenant with something due (or one), its checkpoint threads included,
    one transaction per tenant, then remove the physical residue as an erasure does. Cut
    short, it leaves whole tenants done or untouched; run again, it finishes. Returns
    (tenants visited, what went, what checkpoint retention did)."""
    tenants = [tenant] if tenant is not None else backend.due_tenants(now)
    total = Erased()
    threads = ThreadsSettled()

    def work(txn: WriteTransaction) -> tuple[Erased, ThreadsSettled]:
        return settle(txn, now, reach, "purge"), settle_threads(txn, now, reach, "purge")

    for name in tenants:
        erased, settled = backend.run_write(name, work)
        total.add(erased)
        threads.erased += settled.erased
        threads.pruned += settled.pruned
    backend.purge_residue()
    return len(tenants), total, threads
