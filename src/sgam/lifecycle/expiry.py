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

from ..store import Backend, WriteTransaction
from .erasure import drop_text, erase_operations, forget_episode
from .participants import Erased, Reach, Retained

MAX_ITEMS = 1_000_000
"""The most store items one settle expires."""


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


def purge(backend: Backend, reach: Reach, now: int, tenant: str | None = None) -> tuple[int, Erased, Retained]:
    """Settle every tenant with something due (or one), then apply each participant's
    retention (``Participant.retain``: checkpoint threads' classes), one transaction per
    tenant, then remove the physical residue as an erasure does. Cut short, it leaves
    whole tenants done or untouched; run again, it finishes. Returns (tenants visited,
    what went past its deadline, what retention did)."""
    tenants = [tenant] if tenant is not None else backend.due_tenants(now)
    total = Erased()
    retained = Retained()

    def work(txn: WriteTransaction) -> tuple[Erased, Retained]:
        settled = settle(txn, now, reach, "purge")
        kept = Retained()
        for participant in reach.participants:
            done = participant.retain(txn, now, reach, "purge")
            if done is not None:
                kept.add(done)
        return settled, kept

    for name in tenants:
        erased, kept = backend.run_write(name, work)
        total.add(erased)
        retained.add(kept)
    backend.purge_residue()
    return len(tenants), total, retained
