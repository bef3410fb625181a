"""Erasure: remove data so that every read answers as if it had never been recorded.

The operation log is the truth, so erasing means deleting log entries (and episodes)
and re-deriving each touched key with the same planner the write path uses. Features
that keep copies (document revisions, extraction records, checkpoint threads, stored
responses) remove them as participants (``participants.py``) in the same transaction.
Expiry uses the same machinery: an expired write is an erased operation, an expired
episode an erased episode. What stays is content-free: a tombstone (a keyed digest)
reserving each erased episode id, and an audit entry with counts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from .._core.conversions import TypeConversion
from .._core.errors import NotFoundError
from .._core.purpose import MEMBER, ConsentRow, outlasting_erasure, split_attribute
from .._core.rules import KeyTimeline, Operation
from .._core.values import canonical_json, load_value, normalise_subject
from ..ledger.aliases import forget_names, in_families
from ..ledger.backfill import forget_cursors
from ..ledger.derivation import rederive as rederive_scope
from ..ledger.families import renamed_family
from ..ledger.relations import value_comparison
from ..store import AuditRow, ChangeRow, WriteTransaction
from .participants import Erased, Reach


def audit(txn: WriteTransaction, now: int, action: str, call: str, target: str | None, erased: Erased) -> None:
    txn.record_audit(AuditRow(now, action, call, target, erased.operations + erased.episodes + erased.texts,
                              erased.detail()))


def forget_subject(txn: WriteTransaction, subject: str, now: int, reach: Reach, call: str) -> Erased:
    """Delete every operation of the subject, on every purpose timeline, and empty its
    keys; no re-derivation is needed because nothing of those keys remains. The
    subject's display name goes too. Stored ids that fold into ``subject`` but that were
    left apart (collisions) are the same person spelled
    otherwise: they are erased with it.

    Consent stands as it was: a revocation outlives the erasure, or what was erased would
    be learned again at once. It must name the subject to block it, so the statements
    that still decide a use stay as they are, and those that decide nothing go with
    the rest (``outlasting_erasure``). The lifecycle lock keeps a consent change from
    slipping in between reading the statements and deleting them.

    Every name meaning the subject now is erased with it, with the alias steps that name
    it; names an alias once joined to it and that stand apart now are derived again as if
    the erased names had never been recorded."""
    txn.lock_lifecycle()
    statements = txn.consents(subject)
    latest = {row.purpose: row for row in sorted(statements, key=lambda row: row.seq)}  # across its names
    kept = outlasting_erasure(latest.values())
    txn.delete_consents([row for row in statements if row not in kept])
    erased = Erased()
    names, rest = forget_names(txn, subject)
    _file_under_every_name(txn, kept, names)
    stored_ids = [stored for name in names for _, stored in txn.subject_collisions(name)]
    every_name = list(dict.fromkeys([*names, *stored_ids]))
    mapped = _mapped_attributes(txn)
    values: dict[str, set[str]] = {}
    for name in every_name:
        keys = txn.keys_of_subject(name)
        for key in keys if mapped else ():
            if (base := split_attribute(key[1])[0]) in mapped:
                values.setdefault(base, set()).update(op.value for op in txn.operations(*key) if op.value)
        erased.operations += txn.delete_operations_of_subject(name)
        txn.delete_held_of_subject(name)
        for key_subject, attribute in keys:
            txn.replace_versions(key_subject, attribute, [])
        erased.keys += len(keys)
    for removed in reach.gather(lambda participant: participant.subjects_erased(txn, every_name)):
        erased.add(removed)
    for key_subject, attribute in txn.version_keys(names):  # derived from operations of several names
        txn.replace_versions(key_subject, attribute, [])
    txn.replace_quarantine([], [])  # what retypes set aside of the erased operations
    txn.delete_holdouts(every_name)  # backfills name subjects too
    forget_cursors(txn, every_name)
    txn.delete_aliases_naming(names)
    if rest:  # names once joined to these: their keys as if the erased names had never been
        rederive_scope(txn, subjects=rest)
    for name in names:
        erased.add(_forget_relations_naming(txn, name, reach, values))
        txn.delete_names_of_subject(name)
    forget_map_pairs(txn, values)
    reach.names_erased(txn, names, now)
    audit(txn, now, "forget_subject", call, reach.digests.of(txn.tenant, "subject", subject), erased)
    return erased


def _file_under_every_name(txn: WriteTransaction, kept: list[ConsentRow], names: list[str]) -> None:
    """The kept statements, stated under any name of the subject, filed under every one
    of them: the alias steps that made a statement about ``bob`` one about ``robert`` go
    with the erasure, and what covered the subject through any name must still block it
    by each. Put again in their order, so each name decides every use as all did."""
    if len(names) < 2 or not kept:
        return
    txn.delete_consents(kept)
    for row in sorted(kept, key=lambda row: row.seq):
        for name in names:
            txn.put_consent(name, row.purpose, row.granted, row.changed_at)


def _forget_relations_naming(
    txn: WriteTransaction, subject: str, reach: Reach, values: dict[str, set[str]],
) -> Erased:
    """Every write of a relation whose value names ``subject`` (and every operation of a
    set member that is ``subject``), erased, and each touched key re-derived. A value
    recorded before a retype names the subject when the retype converts it to the
    subject (a ``map`` pair ``"Bobby"`` → ``"bob"``); its stored text goes to ``values``,
    whose map pairs the erasure then drops."""
    value = canonical_json(subject)
    keys: set[tuple[str, str]] = set()
    doomed: list[int] = []
    changes = txn.ledger_changes()
    for attribute in txn.relation_attributes():
        steps = _retypes(changes, attribute)
        for key in txn.keys_naming(attribute, value):
            keys.add(key)
            member = MEMBER in key[1]
            for op in txn.operations(*key):
                if member or _names(op.value, subject) or (
                        op.value is not None and _converted(op, steps) == value):
                    doomed.append(op.seq)
                    if op.value is not None:
                        values.setdefault(attribute, set()).add(op.value)
    if not doomed:
        return Erased()
    removed = txn.delete_operations(sorted(doomed))
    rederive(txn, keys, {key: {value} for key in keys}, reach)
    return Erased(operations=removed, keys=len(keys))


def _names(stored: str | None, subject: str) -> bool:
    """Whether an operation's value names ``subject``: stored as written before a retype
    made its attribute a relation (``" COGS "``), it names the id it normalises to."""
    if stored is None or not stored.startswith('"'):
        return False
    text = load_value(stored)
    return isinstance(text, str) and normalise_subject(text) == subject


def _retypes(changes: list[ChangeRow], attribute: str) -> list[tuple[int, TypeConversion]]:
    """The retypes to a value type of ``attribute`` under any of its names, in order,
    each with the last operation it converts."""
    family = renamed_family(changes, [attribute])
    return [(change.after_seq, TypeConversion.of(detail)) for change in changes
            if change.kind == "retype" and change.attribute in family
            and "type" in (detail := json.loads(change.detail))]


def _converted(op: Operation, steps: list[tuple[int, TypeConversion]]) -> str | None:
    """``op``'s value as the retypes recorded after it convert it (None: set aside)."""
    current = op.value
    for after_seq, conversion in steps:
        if current is not None and op.seq <= after_seq:
            current = conversion(op, current)
    return current


def forget_episode(
    txn: WriteTransaction, episode_id: str, now: int, reach: Reach, call: str, action: str = "forget_episode",
) -> Erased:
    """Erase the episode, every episode derived from it (transitively), every operation
    they sourced and what every participant keeps of them (document revisions naming
    them, extraction records); re-derive each touched key from what remains of its log."""
    if txn.episode(episode_id) is None:
        raise NotFoundError(
            f"episode: no episode {episode_id!r} in tenant {txn.tenant!r}", field="episode", value=episode_id,
        )
    doomed = with_derivatives(txn, [episode_id])
    keys: set[tuple[str, str]] = set()
    for doomed_id in doomed:
        keys.update(txn.keys_of_source(doomed_id))
    erased_values = {
        key: {op.value for op in txn.operations(*key) if op.source in doomed and op.value} for key in keys
    }
    removed = sum(txn.delete_operations_of_source(doomed_id) for doomed_id in doomed)
    rederive(txn, keys, erased_values, reach)
    forget_map_pairs(txn, by_attribute(erased_values))
    erased = Erased(operations=removed, keys=len(keys))
    for kept in reach.gather(lambda participant: participant.episodes_erased(txn, doomed)):
        erased.add(kept)
    for doomed_id in doomed:
        erased.episodes += txn.delete_episode(doomed_id)
    txn.add_tombstones([reach.digests.of(txn.tenant, "episode", doomed_id) for doomed_id in doomed])
    reach.names_erased(txn, [*doomed, *sorted({subject for subject, _ in keys}), *erased.quoted], now)
    audit(txn, now, action, call, reach.digests.of(txn.tenant, "episode", episode_id), erased)
    return erased


def erase_operations(
    txn: WriteTransaction, due: list[tuple[int, str, str]], now: int, reach: Reach, call: str,
) -> Erased:
    """Expiry of writes: delete those log entries and re-derive their keys, exactly as an
    erasure does (a neighbour they closed holds again, a corroboration stands alone)."""
    seqs = {seq for seq, _, _ in due}
    keys = {(subject, attribute) for _, subject, attribute in due}
    erased_values = {key: {op.value for op in txn.operations(*key) if op.seq in seqs and op.value} for key in keys}
    removed = txn.delete_operations(sorted(seqs))
    rederive(txn, keys, erased_values, reach)
    forget_map_pairs(txn, by_attribute(erased_values))
    reach.names_erased(txn, sorted({subject for subject, _ in keys}), now)
    erased = Erased(operations=removed, keys=len(keys))
    audit(txn, now, "expire_writes", call, None, erased)
    return erased


def drop_text(txn: WriteTransaction, episode_id: str, now: int, reach: Reach, call: str) -> Erased:
    """Expiry of a keep_facts episode: it and its derivatives lose their text (and every
    record quoting it); the assertions they sourced stay and still name them."""
    readable = [i for i in with_derivatives(txn, [episode_id]) if (row := txn.episode(i)) and row.readable]
    for participant in reach.participants:
        participant.texts_dropped(txn, readable)
    erased = Erased(texts=txn.lose_text(readable, now))
    reach.names_erased(txn, readable, now)
    audit(txn, now, "expire_text", call, reach.digests.of(txn.tenant, "episode", episode_id), erased)
    return erased


def _mapped_attributes(txn: WriteTransaction) -> set[str]:
    """Every name of an attribute a retype with a ``map`` reached (renames joined)."""
    changes = txn.ledger_changes()
    mapped = [c.attribute for c in changes if c.kind == "retype" and json.loads(c.detail).get("map")]
    return renamed_family(changes, mapped) if mapped else set()


def by_attribute(values: dict[tuple[str, str], set[str]]) -> dict[str, set[str]]:
    """Erased values of keys, gathered by the attribute they are values of."""
    gathered: dict[str, set[str]] = {}
    for (_, attribute), erased in values.items():
        gathered.setdefault(split_attribute(attribute)[0], set()).update(erased)
    return gathered


def forget_map_pairs(txn: WriteTransaction, erased: dict[str, set[str]]) -> None:
    """A retype's ``map`` is kept in the schema history (and its backfill's conversion)
    and may quote personal data: drop the pairs converting an erased value that no
    operation of the attribute (under any of its names) holds any more. A pair still
    converting a kept value stays, since derivation needs it."""
    if not any(erased.values()):
        return
    changes = txn.ledger_changes()
    conversions = {row.seq: row.conversion for row in txn.backfills()}
    for change in changes:
        detail = json.loads(change.detail)
        pairs = detail.get("map") if change.kind == "retype" else None
        if not pairs:
            continue
        family = sorted(renamed_family(changes, [change.attribute]))
        doomed = {old for old, _ in pairs} & set().union(*(erased.get(name, set()) for name in family))
        if not doomed:
            continue
        doomed -= {op.value for op in txn.operations_of_attributes(family) if op.value in doomed}
        if not doomed:
            continue
        detail["map"] = [pair for pair in pairs if pair[0] not in doomed]
        conversion = conversions.get(change.seq)
        if conversion is not None:
            conversion = json.dumps({**json.loads(conversion), "map": detail["map"]})
        txn.rewrite_retype(change.seq, json.dumps(detail, sort_keys=True), conversion)


def with_derivatives(txn: WriteTransaction, roots: Iterable[str]) -> list[str]:
    """``roots`` and every episode derived from them, directly or through others."""
    seen = dict.fromkeys(roots)
    frontier = list(seen)
    while frontier:
        frontier = [child for child in txn.derived_of(frontier) if child not in seen]
        seen.update(dict.fromkeys(frontier))
    return list(seen)


def rederive(
    txn: WriteTransaction, keys: Iterable[tuple[str, str]], erased: dict[tuple[str, str], set[str]], reach: Reach,
) -> None:
    """Replay each key's remaining log through the planner (a key of a name aliases ever
    joined: its whole family, with its alias steps); then tell the participants which
    erased values no longer hold anywhere in the key's log (copies they keep go too)."""
    keys = sorted(keys)
    families = in_families(txn, dict.fromkeys(subject for subject, _ in keys))
    for names in families:
        rederive_scope(txn, subjects=names)
    joined = set().union(*families)
    changes = txn.ledger_changes()
    migrated = {c.attribute for c in changes} | {str(json.loads(c.detail).get("to")) for c in changes}
    for subject, attribute in keys:
        remaining = txn.operations(subject, attribute)
        base = split_attribute(attribute)[0]
        if subject not in joined and base in migrated:  # a migrated attribute: its steps replayed too
            rederive_scope(txn, subjects={subject}, attributes=renamed_family(changes, [base]))
        elif subject not in joined:
            timeline = KeyTimeline(same=value_comparison(txn, attribute))
            timeline.replay(remaining)
            txn.replace_versions(subject, attribute, timeline.all_versions())
        gone = erased.get((subject, attribute), set()) - {op.value for op in remaining}
        if gone:
            for participant in reach.participants:
                participant.values_erased(txn, subject, attribute, gone)


_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def names(text: str, subject: str) -> bool:
    """Whether ``text`` contains ``subject`` as written or once its JSON escapes are
    decoded (whether or not the text as a whole is JSON; surrogate pairs joined)."""
    if subject in text:
        return True
    if "\\" not in text:
        return False
    decoded = _ESCAPE.sub(
        lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "u" else _SIMPLE_ESCAPES[m.group(1)], text
    )
    return subject in decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
