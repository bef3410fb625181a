"""Store items inside the lifecycle: an item is a ledger key whose every write carries
its own episode, so forgetting it erases those episodes (and with them the key's whole
log), then its row and index entries. Expiry reaches an item the same way when its
deadline passes, as a participant (``sgam.lifecycle.participants``), before the ledger
expires single writes: the item's writes share its deadline, and the episodes that carry
their provenance are found through them."""

from __future__ import annotations

from ..lifecycle.erasure import forget_episode
from ..lifecycle.expiry import MAX_ITEMS
from ..lifecycle.participants import Erased, Participant, Reach
from ..store import WriteTransaction
from .keys import ledger_key


class StoreItems(Participant):
    """What the LangGraph-compatible store keeps: items with deadlines of their own."""

    def settle(self, txn: WriteTransaction, now: int, reach: Reach, call: str) -> Erased | None:
        expired = txn.expired_items(now, MAX_ITEMS)
        if not expired:
            return None
        done = Erased()
        for item in expired:
            done.add(forget_item(txn, item.namespace, item.key, now, reach, call, action="expire_item"))
        return done


def forget_item(
    txn: WriteTransaction, namespace: str, key: str, now: int, reach: Reach, call: str,
    action: str = "forget_item",
) -> Erased:
    """Erase a store item: every operation of its ledger key, the episodes that carried
    their provenance (each put has its own), and its row and index entries."""
    subject, attribute = ledger_key(namespace, key)
    txn.lock_keys([(subject, attribute)])
    erased = Erased()
    for source in dict.fromkeys(op.source for op in txn.operations(subject, attribute)):
        if txn.episode(source) is not None:  # else erased with a source it was derived from
            erased.add(forget_episode(txn, source, now, reach, call, action))
    erased.items = txn.delete_item(namespace, key)
    return erased
