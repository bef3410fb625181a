"""Subject names: the first spelling of each subject id (its display name), the stored
ids left apart because two of them fold into one id (reported, never merged), and
aliases: the recorded steps and, over transaction time, what each aliased name
resolves to."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._core.rules import Operation
from .._records import AliasRow, BackfillRow, ChangeRow, ConvertedRow, QuarantineRow
from .._requests import AttributeMeaning, SubjectMeaning, UnfinishedBackfills
from .._rows import OPERATION_COLUMNS, operation_from_row
from .ledger import MAX_INDEXED_VALUE
from .memory import Remembering
from .session import Row, Session, chunks, in_list

RESOLVE = "SELECT subject FROM subject_resolution WHERE tenant = ? AND name = ? AND recorded_to IS NULL"
RESOLVE_KNOWN = ("SELECT subject FROM subject_resolution WHERE tenant = ? AND name = ? "
                 "AND recorded_from <= ? AND (recorded_to IS NULL OR recorded_to > ?)")
RESOLVE_ATTRIBUTE = ("SELECT attribute FROM attribute_resolution WHERE tenant = ? AND name = ? "
                     "AND recorded_to IS NULL")
RESOLVE_ATTRIBUTE_KNOWN = ("SELECT attribute FROM attribute_resolution WHERE tenant = ? AND name = ? "
                           "AND recorded_from <= ? AND (recorded_to IS NULL OR recorded_to > ?)")
CHANGE_COLUMNS = "seq, kind, attribute, detail, recorded_at, after_seq, decided_by, origin"
BACKFILL_COLUMNS = ("seq, attributes, after_subject, subjects_done, subjects_total, batches_done, started_at, "
                    "finished_at, conversion, screened_at")
ALIAS_COLUMNS = "seq, name, subject, recorded_at, after_seq, decided_by, ended_step, ended_at, ended_after_seq"


def meaning_statement(
    session: Session, tenant: str, request: SubjectMeaning | AttributeMeaning,
) -> tuple[str, tuple[Any, ...]]:
    """The statement of ``resolve_subject`` or ``resolve_attribute``: what a subject's or
    an attribute's name resolves to, current or as known at ``known_at`` (no row: itself)."""
    subject = isinstance(request, SubjectMeaning)
    if request.known_at is None:
        return RESOLVE if subject else RESOLVE_ATTRIBUTE, (tenant, request.name)
    known = session.moment(request.known_at)
    return RESOLVE_KNOWN if subject else RESOLVE_ATTRIBUTE_KNOWN, (tenant, request.name, known, known)


def unfinished_statement(tenant: str) -> tuple[str, tuple[Any, ...]]:
    """The statement of ``unfinished_backfills``."""
    return (f"SELECT {BACKFILL_COLUMNS} FROM backfills WHERE tenant = ? AND finished_at IS NULL ORDER BY seq",
            (tenant,))


PAIRS = 100
"""(attribute, value) pairs asked in one statement."""


class SubjectReads(Remembering):
    """Display names and reported collisions, for the reader and the write unit of work."""

    def display_names(self, subjects: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for chunk in chunks(list(dict.fromkeys(subjects))):
            rows = self._db.rows(
                f"SELECT subject, display FROM subject_names WHERE tenant = ? AND {in_list('subject', len(chunk))}",
                (self.tenant, *chunk),
            )
            found.update((str(row[0]), str(row[1])) for row in rows)
        return found

    def subjects_among(self, names: Sequence[str]) -> set[str]:
        """Those of ``names`` (normalised ids) that are the subject of a key of the tenant:
        one probe of the key table's (tenant, subject, attribute) index each."""
        found: set[str] = set()
        for chunk in chunks(list(dict.fromkeys(names))):
            rows = self._db.rows(
                f"SELECT DISTINCT subject FROM ledger_keys WHERE tenant = ? AND {in_list('subject', len(chunk))}",
                (self.tenant, *chunk))
            found.update(str(row[0]) for row in rows)
        return found

    def values_named(self, pairs: Sequence[tuple[str, str]]) -> set[str]:
        """The values (canonical JSON) of those (ledger attribute, value) ``pairs`` that some
        version of the tenant holds: which subjects a relation names, one probe of
        ``assertions_by_value`` per pair."""
        found: set[str] = set()
        for chunk in chunks(list(dict.fromkeys(pairs)), PAIRS):
            held = " OR ".join([f"(attribute{self._db.bytewise} = ? AND value = ?)"] * len(chunk))
            rows = self._db.rows(
                f"SELECT DISTINCT value FROM assertions WHERE tenant = ? AND length(value) <= {MAX_INDEXED_VALUE} "
                f"AND ({held})", (self.tenant, *(part for pair in chunk for part in pair)))
            found.update(str(row[0]) for row in rows)
        return found

    def subject_collisions(self, subject: str | None = None) -> list[tuple[str, str]]:
        """(normalised id, stored id) of the rows the migration left as they were."""
        where, params = ("", (self.tenant,)) if subject is None else (" AND subject = ?", (self.tenant, subject))
        rows = self._db.rows(f"SELECT subject, stored FROM subject_collisions WHERE tenant = ?{where} "
                             "ORDER BY subject, stored", params)
        return [(str(row[0]), str(row[1])) for row in rows]

    def resolve_subject(self, name: str, known_at: int | None = None) -> str:
        """The subject ``name`` means as the ledger stood at ``known_at`` (default now):
        itself unless an alias in force then says otherwise."""
        if not self._aliased():
            return name
        request = SubjectMeaning(name, known_at)
        rows = self._db.answer(request, *meaning_statement(self._db, self.tenant, request))
        return name if not rows else str(rows[0][0])

    def resolve_subjects(self, names: Sequence[str]) -> dict[str, str]:
        """What each of ``names`` means now, for the aliased ones (one statement per chunk)."""
        found: dict[str, str] = {}
        if not self._aliased():
            return found
        for chunk in chunks(sorted(set(names))):
            rows = self._db.rows("SELECT name, subject FROM subject_resolution WHERE tenant = ? "
                                 f"AND recorded_to IS NULL AND {in_list('name', len(chunk))}", (self.tenant, *chunk))
            found.update((str(row[0]), str(row[1])) for row in rows)
        return found

    def names_meaning(self, subject: str, known_at: int | None = None) -> list[str]:
        """The other names that mean ``subject`` at ``known_at`` (default now), sorted."""
        if not self._aliased():
            return []
        if known_at is None:
            rows = self._db.rows("SELECT name FROM subject_resolution WHERE tenant = ? AND subject = ? "
                                 "AND recorded_to IS NULL ORDER BY name", (self.tenant, subject))
        else:
            moment = self._db.moment(known_at)
            rows = self._db.rows("SELECT name FROM subject_resolution WHERE tenant = ? AND subject = ? "
                                 "AND recorded_from <= ? AND (recorded_to IS NULL OR recorded_to > ?) ORDER BY name",
                                 (self.tenant, subject, moment, moment))
        return [str(row[0]) for row in rows]

    def alias_steps(self) -> list[AliasRow]:
        """Every alias step of the tenant still on record, in the order they were taken."""
        rows = self._db.rows(f"SELECT {ALIAS_COLUMNS} FROM subject_aliases WHERE tenant = ? ORDER BY seq",
                             (self.tenant,))
        return [AliasRow(*row) for row in rows]

    def resolve_attribute(self, name: str, known_at: int | None = None) -> str:
        """The attribute ``name`` means at ``known_at`` (default now): itself unless a
        rename in force then says otherwise."""
        if not self._renamed():
            return name
        request = AttributeMeaning(name, known_at)
        rows = self._db.answer(request, *meaning_statement(self._db, self.tenant, request))
        return name if not rows else str(rows[0][0])

    def ledger_changes(self) -> list[ChangeRow]:
        """Every schema migration step of the tenant, in the order taken."""
        rows = self._db.rows(f"SELECT {CHANGE_COLUMNS} FROM ledger_changes WHERE tenant = ? ORDER BY seq",
                             (self.tenant,))
        return [ChangeRow(*row) for row in rows]

    def quarantined(self, attribute: str | None = None) -> list[QuarantineRow]:
        """What retypes set aside (of ``attribute``), by attribute, subject and order."""
        where, params = ("", (self.tenant,)) if attribute is None else (" AND attribute = ?", (self.tenant, attribute))
        rows = self._db.rows(f"SELECT seq, subject, attribute, value, since FROM quarantine WHERE tenant = ?{where} "
                             "ORDER BY attribute, subject, seq", params)
        return [QuarantineRow(*row) for row in rows]

    def operations_of_subjects(self, names: Sequence[str]) -> list[Operation]:
        """Every operation recorded naming one of ``names``, in the order recorded."""
        found: list[Operation] = []
        for chunk in chunks(sorted(set(names))):
            rows = self._db.rows(f"SELECT {OPERATION_COLUMNS} FROM operations WHERE tenant = ? AND "
                                 f"{in_list('subject', len(chunk))}", (self.tenant, *chunk))
            found += [operation_from_row(row) for row in rows]
        return sorted(found, key=lambda op: op.seq)

    def backfills(self) -> list[BackfillRow]:
        rows = self._db.rows(f"SELECT {BACKFILL_COLUMNS} FROM backfills WHERE tenant = ? ORDER BY seq", (self.tenant,))
        return [BackfillRow(*row) for row in rows]

    def unfinished_backfills(self) -> list[BackfillRow]:
        """Asked by every read and write of a versioned key: remembered where the backend
        remembers (most tenants have none)."""
        return self._memory.recall(("backfills", self.tenant, ""), self._unfinished_backfills)

    def _unfinished_backfills(self) -> list[BackfillRow]:
        rows = self._db.answer(UnfinishedBackfills(), *unfinished_statement(self.tenant))
        return [BackfillRow(*row) for row in rows]

    def holdout(self, seq: int, subject: str) -> bool | None:
        """Two key probes in one statement: the backfill's screening, then the subject."""
        row = self._db.row("SELECT b.screened_at IS NOT NULL, EXISTS (SELECT 1 FROM backfill_holdouts h "
                           "WHERE h.tenant = b.tenant AND h.seq = b.seq AND h.subject = ?) "
                           "FROM backfills b WHERE b.tenant = ? AND b.seq = ?", (subject, self.tenant, seq))
        return None if row is None or not row[0] else bool(row[1])
    def converted_values(self, seqs: Sequence[int]) -> list[ConvertedRow]:
        found: list[ConvertedRow] = []
        for chunk in chunks(sorted(set(seqs))):
            rows = self._db.rows(f"SELECT step, seq, value, reason FROM converted_values WHERE tenant = ? AND "
                                 f"{in_list('seq', len(chunk))} ORDER BY step, seq", (self.tenant, *chunk))
            found += [ConvertedRow(*row) for row in rows]
        return found

    def attributes_of_memory_type(self, memory_type: str) -> list[str]:
        rows = self._db.rows("SELECT DISTINCT attribute FROM operations WHERE tenant = ? AND memory_type = ?",
                             (self.tenant, memory_type))
        return sorted(str(row[0]) for row in rows)


class SubjectWrites(SubjectReads):
    """Recording the first spelling of a subject, and erasing its names."""

    def note_spellings(self, spellings: Sequence[tuple[str, str]]) -> None:
        """(subject id, spelling as given): the first one recorded for an id stays."""
        self._db.run_many(
            "INSERT INTO subject_names (tenant, subject, display) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(self.tenant, subject, spelling) for subject, spelling in dict(reversed(spellings)).items()],
        )

    def delete_names_of_subject(self, subject: str) -> int:
        """The display name and the collision report of ``subject``: both spell it."""
        removed = self._db.count("DELETE FROM subject_names WHERE tenant = ? AND subject = ?", (self.tenant, subject))
        return removed + self._db.count("DELETE FROM subject_collisions WHERE tenant = ? AND subject = ?",
                                        (self.tenant, subject))

    def last_operation_seq(self) -> int:
        """The tenant's latest operation: a step taken now comes after it."""
        row = self._db.row("SELECT coalesce(max(seq), 0) FROM operations WHERE tenant = ?", (self.tenant,))
        return int(row[0]) if row else 0

    def add_alias(self, row: AliasRow) -> None:
        self._db.run(f"INSERT INTO subject_aliases (tenant, {ALIAS_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (self.tenant, row.seq, row.name, row.subject, self._db.moment(row.recorded_at), row.after_seq,
                      row.decided_by, row.ended_step, self._db.moment(row.ended_at), row.ended_after_seq))

    def end_alias(self, seq: int, step: int, ended_at: int, ended_after_seq: int) -> None:
        self._db.run("UPDATE subject_aliases SET ended_step = ?, ended_at = ?, ended_after_seq = ? "
                     "WHERE tenant = ? AND seq = ?",
                     (step, self._db.moment(ended_at), ended_after_seq, self.tenant, seq))

    def current_resolution(self) -> dict[str, str]:
        """Every aliased name and what it means now."""
        rows = self._db.rows("SELECT name, subject FROM subject_resolution WHERE tenant = ? AND recorded_to IS NULL",
                             (self.tenant,))
        return {str(row[0]): str(row[1]) for row in rows}

    def resolve_names(self, changes: dict[str, str | None], at: int) -> None:
        """From ``at`` on, each subject name of ``changes`` means its value (None: itself)."""
        self._resolve("subject_resolution", "subject", changes, at)

    def resolve_attribute_names(self, changes: dict[str, str | None], at: int) -> None:
        """From ``at`` on, each attribute name of ``changes`` means its value (None: itself)."""
        self._resolve("attribute_resolution", "attribute", changes, at)

    def _resolve(self, table: str, column: str, changes: dict[str, str | None], at: int) -> None:
        """A row that began at ``at`` itself was never visible and goes."""
        names = sorted(changes)
        moment = self._db.moment(at)
        for chunk in chunks(names):
            inside = in_list("name", len(chunk))
            self._db.run(f"DELETE FROM {table} WHERE tenant = ? AND recorded_to IS NULL "
                         f"AND recorded_from = ? AND {inside}", (self.tenant, moment, *chunk))
            self._db.run(f"UPDATE {table} SET recorded_to = ? WHERE tenant = ? AND recorded_to IS NULL "
                         f"AND {inside}", (moment, self.tenant, *chunk))
        self._db.run_many(
            f"INSERT INTO {table} (tenant, name, {column}, recorded_from) VALUES (?, ?, ?, ?) "
            f"ON CONFLICT (tenant, name, recorded_from) DO UPDATE SET {column} = excluded.{column}, recorded_to = NULL",
            [(self.tenant, name, changes[name], moment) for name in names if changes[name] is not None])

    def version_keys(self, subjects: Sequence[str]) -> list[tuple[str, str]]:
        """Every key of ``subjects`` with a stored version, in any transaction time."""
        found: list[tuple[str, str]] = []
        for chunk in chunks(sorted(set(subjects))):
            rows = self._db.rows(f"SELECT DISTINCT subject, attribute FROM assertions WHERE tenant = ? AND "
                                 f"{in_list('subject', len(chunk))}", (self.tenant, *chunk))
            found += [(str(row[0]), str(row[1])) for row in rows]
        return found

    def delete_aliases_naming(self, names: Sequence[str]) -> int:
        """Every alias step and resolution naming one of ``names``, on either side."""
        removed = 0
        for chunk in chunks(sorted(set(names))):
            params = (self.tenant, *chunk, *chunk)
            either = f"({in_list('name', len(chunk))} OR {in_list('subject', len(chunk))})"
            removed += self._db.count(f"DELETE FROM subject_aliases WHERE tenant = ? AND {either}", params)
            self._db.run(f"DELETE FROM subject_resolution WHERE tenant = ? AND {either}", params)
        return removed

    def current_attribute_resolution(self) -> dict[str, str]:
        rows = self._db.rows("SELECT name, attribute FROM attribute_resolution WHERE tenant = ? "
                             "AND recorded_to IS NULL", (self.tenant,))
        return {str(row[0]): str(row[1]) for row in rows}

    def add_change(self, row: ChangeRow) -> None:
        self._db.run(f"INSERT INTO ledger_changes (tenant, {CHANGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (self.tenant, row.seq, row.kind, row.attribute, row.detail, self._db.moment(row.recorded_at),
                      row.after_seq, row.decided_by, row.origin))

    def operations_of_attributes(self, attributes: Sequence[str]) -> list[Operation]:
        """Every operation of ``attributes`` (their purpose timelines and members too), of
        every subject, in the order recorded."""
        found: list[Operation] = []
        column = f"attribute{self._db.bytewise}"
        for attribute in sorted(set(attributes)):
            rows = self._db.rows(f"SELECT {OPERATION_COLUMNS} FROM operations WHERE tenant = ? AND (attribute = ? "
                                 f"OR ({column} >= ? AND {column} < ?))",
                                 (self.tenant, attribute, f"{attribute}\x1e", f"{attribute}\x20"))
            found += [operation_from_row(row) for row in rows]
        return sorted(found, key=lambda op: op.seq)

    def attribute_version_keys(self, attributes: Sequence[str]) -> list[tuple[str, str]]:
        """Every key of ``attributes`` (purposes and members too) with a stored version."""
        found: list[tuple[str, str]] = []
        column = f"attribute{self._db.bytewise}"
        for attribute in sorted(set(attributes)):
            rows = self._db.rows(f"SELECT DISTINCT subject, attribute FROM assertions WHERE tenant = ? AND "
                                 f"(attribute = ? OR ({column} >= ? AND {column} < ?))",
                                 (self.tenant, attribute, f"{attribute}\x1e", f"{attribute}\x20"))
            found += [(str(row[0]), str(row[1])) for row in rows]
        return found

    def replace_quarantine(self, seqs: Sequence[int], rows: Sequence[QuarantineRow]) -> None:
        """Forget what was set aside of the operations ``seqs`` and of operations erased
        since, then record ``rows``."""
        self._db.run("DELETE FROM quarantine WHERE tenant = ? AND NOT EXISTS (SELECT 1 FROM operations o "
                     "WHERE o.tenant = quarantine.tenant AND o.seq = quarantine.seq)", (self.tenant,))
        for chunk in chunks(sorted(set(seqs))):
            self._db.run(f"DELETE FROM quarantine WHERE tenant = ? AND {in_list('seq', len(chunk))}",
                         (self.tenant, *chunk))
        self._db.run_many("INSERT INTO quarantine (tenant, seq, subject, attribute, value, since) "
                          "VALUES (?, ?, ?, ?, ?, ?)",
                          [(self.tenant, r.seq, r.subject, r.attribute, r.value, self._db.moment(r.since))
                           for r in rows])

    def add_converted_values(self, rows: Sequence[ConvertedRow]) -> None:
        """An operation already recorded for the step (a backfill's batches overlap where
        an alias family spans two) keeps its row."""
        self._db.run_many("INSERT INTO converted_values (tenant, seq, step, value, reason) VALUES (?, ?, ?, ?, ?) "
                          "ON CONFLICT DO NOTHING", [(self.tenant, r.seq, r.step, r.value, r.reason) for r in rows])

    def delete_attribute_schema(self, attribute: str) -> None:
        self._db.run("DELETE FROM attribute_schemas WHERE tenant = ? AND attribute = ?", (self.tenant, attribute))

    def rewrite_retype(self, seq: int, detail: str, conversion: str | None) -> None:
        """Erasure: the step's detail with pairs of its map gone, and the conversion its
        backfill keeps (when it keeps one) likewise."""
        self._db.run("UPDATE ledger_changes SET detail = ? WHERE tenant = ? AND seq = ?", (detail, self.tenant, seq))
        if conversion is not None:
            self._db.run("UPDATE backfills SET conversion = ? WHERE tenant = ? AND seq = ?",
                         (conversion, self.tenant, seq))

    def add_backfill(self, row: BackfillRow) -> None:
        self._db.run(f"INSERT INTO backfills (tenant, {BACKFILL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     (self.tenant, row.seq, row.attributes, row.after_subject, row.subjects_done,
                      row.subjects_total, row.batches_done, self._db.moment(row.started_at),
                      self._db.moment(row.finished_at), row.conversion, self._db.moment(row.screened_at)))

    def claim_backfill(self, seq: int) -> BackfillRow | None:
        row = self._db.row(f"SELECT {BACKFILL_COLUMNS} FROM backfills WHERE tenant = ? AND seq = ?{self._db.locking}",
                           (self.tenant, seq))
        return None if row is None else BackfillRow(*row)

    def advance_backfill(self, row: BackfillRow) -> None:
        self._db.run("UPDATE backfills SET after_subject = ?, subjects_done = ?, subjects_total = ?, "
                     "batches_done = ?, finished_at = ? WHERE tenant = ? AND seq = ?",
                     (row.after_subject, row.subjects_done, row.subjects_total, row.batches_done,
                      self._db.moment(row.finished_at), self.tenant, row.seq))
        if row.finished_at is not None:
            self._db.run("DELETE FROM backfill_holdouts WHERE tenant = ? AND seq = ?", (self.tenant, row.seq))

    def attribute_values(self, attribute: str, after: tuple[str, str, str] | None,
                         limit: int) -> list[tuple[str, str, str]]:
        """One page of ``assertions_by_value`` over the attribute and its purposes'
        timelines: the rest of the cursor's attribute, then the attributes after it (a
        row value compared across the range would not bound the index's seek)."""
        column = f"attribute{self._db.bytewise}"
        head = (f"SELECT attribute, value, subject FROM assertions INDEXED BY assertions_by_value WHERE tenant = ? "
                f"AND length(value) <= {MAX_INDEXED_VALUE} AND ")
        tail = f" ORDER BY {column}, value, subject LIMIT ?"
        end = f"{attribute}\x20"
        rows: list[Row] = []
        if after is None:
            start, first = f"{column} >= ?", attribute
        else:
            rows = self._db.rows(f"{head}{column} = ? AND (value, subject) > (?, ?){tail}",
                                 (self.tenant, *after, limit))
            start, first = f"{column} > ?", after[0]
        if len(rows) < limit:
            rows += self._db.rows(f"{head}{start} AND {column} < ?{tail}", (self.tenant, first, end, limit - len(rows)))
        return [(str(row[0]), str(row[1]), str(row[2])) for row in rows]

    def long_value_subjects(self, attribute: str) -> list[str]:
        column = f"attribute{self._db.bytewise}"
        rows = self._db.rows(
            f"SELECT DISTINCT subject FROM assertions INDEXED BY assertions_long_values WHERE tenant = ? "
            f"AND {column} >= ? AND {column} < ? AND length(value) > {MAX_INDEXED_VALUE}",
            (self.tenant, attribute, f"{attribute}\x20"))
        return [str(row[0]) for row in rows]

    def add_holdouts(self, seq: int, subjects: Sequence[str], screened_at: int) -> None:
        self._db.run_many("INSERT INTO backfill_holdouts (tenant, seq, subject) VALUES (?, ?, ?) "
                          "ON CONFLICT DO NOTHING", [(self.tenant, seq, subject) for subject in subjects])
        self._db.run("UPDATE backfills SET screened_at = ? WHERE tenant = ? AND seq = ?",
                     (self._db.moment(screened_at), self.tenant, seq))

    def delete_holdouts(self, subjects: Sequence[str]) -> None:
        for chunk in chunks(sorted(set(subjects))):
            self._db.run(f"DELETE FROM backfill_holdouts WHERE tenant = ? AND {in_list('subject', len(chunk))}",
                         (self.tenant, *chunk))

    def family_subjects(self, attributes: Sequence[str], after: str | None, limit: int) -> list[str]:
        """One range of the key table per attribute (its purposes and members too), each
        in subject order from ``after`` on; bytewise, as Python compares the cursor."""
        found: set[str] = set()
        subject, column = f"subject{self._db.bytewise}", f"attribute{self._db.bytewise}"
        start = "" if after is None else f" AND {subject} > ?"
        for attribute in sorted(set(attributes)):
            for where, params in (("attribute = ?", (attribute,)),
                                  (f"{column} >= ? AND {column} < ?", (f"{attribute}\x1e", f"{attribute}\x20"))):
                rows = self._db.rows(
                    f"SELECT DISTINCT {subject} FROM ledger_keys WHERE tenant = ? AND {where}{start} "
                    f"ORDER BY {subject} LIMIT ?",
                    (self.tenant, *params, *(() if after is None else (after,)), limit))
                found.update(str(row[0]) for row in rows)
        return sorted(found)[:limit]

    def count_family_subjects(self, attributes: Sequence[str]) -> int:
        return self._count_family("count(DISTINCT subject)", "ledger_keys", attributes)

    def count_family_operations(self, attributes: Sequence[str]) -> int:
        return self._count_family("count(*)", "operations", attributes)

    def _count_family(self, what: str, table: str, attributes: Sequence[str]) -> int:
        ranges, params = self._family_ranges(attributes)
        row = self._db.row(f"SELECT {what} FROM {table} WHERE tenant = ? AND ({ranges})", (self.tenant, *params))
        return 0 if row is None else int(row[0])

    def _family_ranges(self, attributes: Sequence[str]) -> tuple[str, list[str]]:
        """SQL true for a row of ``attributes`` or of their purposes' timelines and members."""
        column = f"attribute{self._db.bytewise}"
        names = sorted(set(attributes))
        ranges = " OR ".join([f"attribute = ? OR ({column} >= ? AND {column} < ?)"] * len(names))
        return ranges, [part for a in names for part in (a, f"{a}\x1e", f"{a}\x20")]

    def last_recorded_of_attributes(self, attributes: Sequence[str]) -> int | None:
        """One pass over the tenant's operations, reading no more than a row at a time."""
        ranges, params = self._family_ranges(attributes)
        row = self._db.row(f"SELECT max(recorded_at) FROM operations WHERE tenant = ? AND ({ranges})",
                           (self.tenant, *params))
        return None if row is None or row[0] is None else int(row[0])

    def family_subject_before(self, attributes: Sequence[str], subject: str) -> str | None:
        ranges, params = self._family_ranges(attributes)
        column = f"subject{self._db.bytewise}"
        row = self._db.row(f"SELECT max({column}) FROM ledger_keys WHERE tenant = ? AND ({ranges}) AND {column} < ?",
                           (self.tenant, *params, subject))
        return None if row is None or row[0] is None else str(row[0])

    def lock_subjects(self, subjects: Sequence[str]) -> None:
        """Nothing here: a backend whose unit of work does not hold the whole tenant
        overrides it."""
