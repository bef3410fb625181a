"""The ledger's statements, written once: episodes, the operation log, assertion versions
and the tenant's schema. Backends mix these into their reader and write unit of work and
keep only what is their own (SQLite's cache, PostgreSQL's locks, prefetches and batched
inserts), overriding a method and calling it through ``super()``. Here the statements
both share and the reads; the write unit of work's in ``ledger_writes.py``."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ..._core.purpose import ledger_attribute, members_prefix
from ..._core.rules import Operation, Version, as_last_seen, cut, ended, ended_all
from ..._core.schema import AttributeSchema, MemoryTypeSchema
from .._records import EpisodeRow, QueryFilter
from .._requests import AttributeSchemas, Declared, Holding, Members
from .._rows import (
    ATTRIBUTE_SCHEMA_COLUMNS,
    EPISODE_COLUMNS,
    MEMORY_TYPE_COLUMNS,
    OPERATION_COLUMNS,
    VERSION_COLUMNS,
    attribute_schema_from_row,
    memory_type_from_row,
    operation_from_row,
    version_columns_of,
    version_from_row,
)
from .session import Session, chunks, in_list

KEY = "tenant = ? AND subject = ? AND attribute = ?"
KEY_VALUES = (f"SELECT value, CASE WHEN recorded_from > ? OR recorded_to > ? THEN 1 "
              f"WHEN recorded_from = ? OR recorded_to = ? THEN 0 ELSE -1 END FROM assertions WHERE {KEY}")
"""No ``GROUP BY``: a key holds few versions, and SQLite would sort them in a temporary tree."""
MAX_INDEXED_VALUE = 1100
"""Values at most this long are in ``assertions_by_value`` (a subject id is at most 256
characters; its JSON escapes fit)."""


def visible(alias: str = "") -> str:
    """SQL true when a version (of the table ``alias``) was visible at a transaction time
    given twice."""
    column = f"{alias}." if alias else ""
    return f"{column}recorded_from <= ? AND ({column}recorded_to IS NULL OR {column}recorded_to > ?)"


_CURRENT = f"SELECT {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_current WHERE {KEY} AND recorded_to IS NULL"
CURRENT = f"{_CURRENT} ORDER BY valid_from"
# A version's end is derived from the next version of its key (``_core.rules.ended``), so every
# point lookup brings its neighbour too: the floor(s) of an instant and the version(s)
# after it, two index probes in one statement. ``side`` tells them apart.
NEAR = (
    f"SELECT * FROM (SELECT 0 AS side, {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_current "
    f"WHERE {KEY} AND recorded_to IS NULL AND valid_from <= ? ORDER BY valid_from DESC LIMIT 2) AS f "
    f"UNION ALL SELECT * FROM (SELECT 1 AS side, {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_current "
    f"WHERE {KEY} AND recorded_to IS NULL AND valid_from > ? ORDER BY valid_from LIMIT 2) AS c"
)
GET = (
    f"SELECT * FROM ({_CURRENT} AND valid_from <= ? ORDER BY valid_from DESC LIMIT 1) AS f "
    f"UNION ALL SELECT * FROM ({_CURRENT} AND valid_from > ? ORDER BY valid_from LIMIT 1) AS c"
)
_KNOWN = f"SELECT {VERSION_COLUMNS} FROM assertions INDEXED BY assertions_by_key WHERE {KEY} AND {visible()}"
GET_KNOWN = (
    f"SELECT * FROM ({_KNOWN} AND valid_from <= ? ORDER BY valid_from DESC LIMIT 1) AS f "
    f"UNION ALL SELECT * FROM ({_KNOWN} AND valid_from > ? ORDER BY valid_from LIMIT 1) AS c"
)
_HISTORY_KNOWN = f"{_KNOWN} ORDER BY valid_from"
EPISODE = f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND episode_id = ?"
LAST_RECORDED = f"SELECT recorded_at FROM operations WHERE {KEY} ORDER BY seq DESC LIMIT 1"
SCHEMA_VERSION = "SELECT version FROM tenant_schema WHERE tenant = ?"
OPERATION_FIELDS = (
    "tenant, subject, attribute, kind, valid_at, value, source, recorded_at, memory_type, confidence, "
    "schema_version, expires_at"
)


def timeline_clause(flt: QueryFilter, session: Session, column: str = "attribute") -> tuple[str, list[Any]]:
    """The SQL condition, on the ledger attribute ``column``, of a query's timelines: the
    general one (no separator in the ledger attribute), plus ``flt.purpose``'s (the
    ledger attribute ends with separator + purpose, or for a set's member holds
    separator + purpose + member mark), narrowed to ``flt.attribute`` (of a set: the
    range of its members' keys, ``_core.purpose.members_prefix``)."""
    if flt.attribute is not None:
        scopes = [None] if flt.purpose is None else [None, flt.purpose]
        if flt.many:
            ranged = f"({column}{session.bytewise} >= ? AND {column}{session.bytewise} < ?)"
            bounds = [bound for scope in scopes for bound in prefix_range(members_prefix(flt.attribute, scope))]
            return (ranged if len(scopes) == 1 else f"({ranged} OR {ranged})"), bounds
        names = [ledger_attribute(flt.attribute, scope) for scope in scopes]
        if len(names) == 1:
            return f"{column} = ?", names
        return f"{column} IN (?, ?)", names
    general = f"{session.find}({column}, {session.char}(31)) = 0"
    if flt.purpose is None:
        return general, []
    tail = ledger_attribute("", flt.purpose)
    return (f"({general} OR substr({column}, length({column}) - ? + 1) = ? OR {session.find}({column}, ?) > 0)",
            [len(tail), tail, members_prefix("", flt.purpose)])


def prefix_range(prefix: str) -> tuple[str, str]:
    """The bytewise range of the texts starting with ``prefix``: [prefix, its successor)."""
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def unfollowed(alias: str, seen: str, true: str) -> str:
    """SQL true when ``alias`` still holds at a bound instant as far as its key's later
    versions go: the next version of its key (visible as ``seen`` says, over the alias
    ``n``) starts after that instant, or there is none (a version's end is derived,
    ``_core.rules.ended``); ``true`` is the dialect's literal. One probe of the key:
    PostgreSQL runs a scalar subquery once per row with the key bound, where a
    ``NOT EXISTS`` becomes an anti-join whose plan rests on statistics. On a table
    bulk-loaded moments before, which autovacuum has not yet analysed, that join compared
    every row with the tenant's whole range of current versions (``linked`` at 10,000
    facts: 15 ms, against 0.05 ms; ``query`` with ``at``: 120 ms). Its parameters: the
    tenant (bound, not correlated: a distributed planner routes a subquery only by a tenant
    it is given), those of ``seen``, the instant."""
    return (f"coalesce((SELECT n.valid_from FROM assertions n WHERE n.tenant = ? "
            f"AND n.subject = {alias}.subject AND n.attribute = {alias}.attribute AND {seen} "
            f"AND n.valid_from > {alias}.valid_from ORDER BY n.valid_from LIMIT 1) > ?, {true})")


@functools.cache
def holding_sql(bytewise: str, known: bool, subjects: int, ranged: bool) -> str:
    """``LedgerReader.holding``'s statement, built once per dialect, kind of read, number
    of subjects and kind of key: the versions of the keys (one attribute, or the range of
    a set's member keys) holding at an instant by their stored ends, each with the start
    of the next version of its key (one probe; ``holding`` drops a version followed at or
    before the instant, whose derived end has passed). A follower's source is asked only
    for the rare version it cuts (``follower_source_sql``), not by a second probe per row."""
    column = f"a.attribute{bytewise}"
    if known:
        index, current, seen = "assertions_by_key", visible("a"), visible("n")
    else:
        index, current, seen = "assertions_current", "a.recorded_to IS NULL", "n.recorded_to IS NULL"
    following = (f"SELECT n.valid_from FROM assertions n WHERE n.tenant = ? AND n.subject = a.subject "
                 f"AND n.attribute = a.attribute AND {seen} AND n.valid_from > a.valid_from "
                 "ORDER BY n.valid_from LIMIT 1")
    who = "a.subject = ?" if subjects == 1 else in_list("a.subject", subjects)
    keys = f"{column} >= ? AND {column} < ?" if ranged else f"{column} = ?"
    return (f"SELECT {version_columns_of('a')}, ({following}) AS next_from FROM assertions a INDEXED BY {index} "
            f"WHERE a.tenant = ? AND {who} AND {keys} AND {current} "
            f"AND a.valid_from <= ? AND (a.valid_to IS NULL OR a.valid_to > ?) ORDER BY a.subject, {column}")


def holding_statement(
    session: Session, tenant: str, subjects: Sequence[str], attribute: str, at: int, known_at: int | None,
    members: bool,
) -> tuple[str, tuple[Any, ...]]:
    """``holding_sql`` with its parameters, for distinct ``subjects`` (at most ``CHUNK``)."""
    moment = session.moment
    known = () if known_at is None else (moment(known_at), moment(known_at))
    keys = prefix_range(attribute) if members else (attribute,)
    return (holding_sql(session.bytewise, known_at is not None, len(subjects), members),
            (tenant, *known, tenant, *subjects, *keys, *known, moment(at), moment(at)))


def members_statement(session: Session, tenant: str, request: Members) -> tuple[str, tuple[Any, ...]]:
    """The statement of ``LedgerReader.members``: the subject's member keys under the prefix."""
    return holding_statement(session, tenant, [request.subject], request.prefix, request.at, request.known_at, True)


def get_statement(session: Session, tenant: str, request: Holding) -> tuple[str, tuple[Any, ...]]:
    """The statement of ``LedgerReader.get``: the key's version starting last at or before
    the instant and the one starting first after it (current, or visible at ``known_at``)."""
    key = (tenant, request.subject, request.attribute)
    at = session.moment(request.at)
    if request.known_at is None:
        return GET, (*key, at, *key, at)
    known = session.moment(request.known_at)
    return GET_KNOWN, (*key, known, known, at, *key, known, known, at)


def schemas_statement(tenant: str, attribute: str | None = None) -> tuple[str, tuple[Any, ...]]:
    """The statement of the tenant's declared attributes (``attribute``'s alone if named)."""
    every = f"SELECT {ATTRIBUTE_SCHEMA_COLUMNS} FROM attribute_schemas WHERE tenant = ?"
    if attribute is None:
        return f"{every} ORDER BY attribute", (tenant,)
    return f"{every} AND attribute = ? ORDER BY attribute", (tenant, attribute)


def follower_source_sql(known: bool) -> str:
    """The source of the version of a key starting at an instant (visible at a
    transaction time given twice, or current)."""
    seen = visible() if known else "recorded_to IS NULL"
    return f"SELECT source FROM assertions WHERE {KEY} AND {seen} AND valid_from = ? LIMIT 1"


Near = tuple[list[Version], list[Version]]
"""Around an instant: up to two current versions starting at or before it (latest
first) and up to two starting after it (earliest first), as stored."""


def near_from_rows(rows: list[tuple[Any, ...]]) -> Near:
    """Split ``NEAR``'s rows (``side`` first) into floors and ceilings."""
    floors = [version_from_row(r[1:]) for r in rows if r[0] == 0]
    ceilings = [version_from_row(r[1:]) for r in rows if r[0] == 1]
    floors.sort(key=lambda v: -v.valid_from)
    ceilings.sort(key=lambda v: v.valid_from)
    return floors, ceilings


def near_floor(near: Near, moment: int, strict: bool) -> Version | None:
    floors, ceilings = near
    first = ceilings[0] if ceilings else None
    if not floors:
        return None
    if not strict or floors[0].valid_from < moment:
        return ended(floors[0], first)
    return ended(floors[1], floors[0]) if len(floors) > 1 else None


def near_ceiling(near: Near) -> Version | None:
    ceilings = near[1]
    if not ceilings:
        return None
    return ended(ceilings[0], ceilings[1] if len(ceilings) > 1 else None)


def holding_at(around: list[Version], at: int) -> Version | None:
    """The version holding at ``at`` among ``around``: the one starting last at or before
    ``at`` and the one starting first after it (``GET``'s rows), its end derived."""
    found = following = None
    for version in around:
        if version.valid_from <= at:
            found = version
        else:
            following = version
    if found is None:
        return None
    version = ended(found, following)
    return version if version.holds_at(at) else None


class KeyLookups:
    """Index lookups over the current versions of one key (``KeyView``): one ``NEAR``
    statement per instant asked about, ends derived from the neighbours it brings."""

    __slots__ = ("_db", "_near", "_params")

    def __init__(self, db: Session, tenant: str, subject: str, attribute: str,
                 near: tuple[int, Near] | None = None) -> None:
        self._db = db
        self._params = (tenant, subject, attribute)
        self._near = near

    def _around(self, moment: int) -> Near:
        if self._near is None or self._near[0] != moment:
            at = self._db.moment(moment)
            self._near = (moment, near_from_rows(self._db.rows(NEAR, (*self._params, at, *self._params, at))))
        return self._near[1]

    def floor(self, moment: int, *, strict: bool = False) -> Version | None:
        return near_floor(self._around(moment), moment, strict)

    def ceiling(self, moment: int) -> Version | None:
        return near_ceiling(self._around(moment))


class Scoped:
    """A tenant's statements over one session: the base of every portable mix-in."""

    def __init__(self, db: Session, tenant: str) -> None:
        self._db = db
        self.tenant = tenant

    def session(self) -> Session:
        """The session the statements run on (``Statements``: for the store's own indexes)."""
        return self._db


class LedgerReads(Scoped):
    """Reads the reader and the write unit of work share."""

    def episode(self, episode_id: str) -> EpisodeRow | None:
        row = self._db.row(EPISODE, (self.tenant, episode_id))
        return EpisodeRow(*row) if row else None

    def operations(self, subject: str, attribute: str) -> list[Operation]:
        rows = self._db.rows(f"SELECT {OPERATION_COLUMNS} FROM operations WHERE {KEY} ORDER BY seq",
                             (self.tenant, subject, attribute))
        return [operation_from_row(row) for row in rows]

    def _attribute_schema_rows(self, attribute: str | None) -> list[AttributeSchema]:
        """The tenant's declared attributes, or ``attribute`` alone (a read asked ahead:
        ``AttributeSchemas``, ``Declared``)."""
        request = AttributeSchemas() if attribute is None else Declared(attribute)
        rows = self._db.answer(request, *schemas_statement(self.tenant, attribute))
        return [attribute_schema_from_row(row) for row in rows]

    def _memory_type_rows(self, where: str, params: tuple[Any, ...]) -> list[MemoryTypeSchema]:
        rows = self._db.rows(f"SELECT {MEMORY_TYPE_COLUMNS} FROM memory_types WHERE tenant = ? {where} "
                             "ORDER BY name", (self.tenant, *params))
        return [memory_type_from_row(row) for row in rows]


class LedgerReader(LedgerReads):
    """The reader's ledger reads; each is one indexed statement."""

    def get(self, subject: str, attribute: str, at: int, known_at: int | None) -> Version | None:
        request = Holding(subject, attribute, at, known_at)
        rows = self._db.answer(request, *get_statement(self._db, self.tenant, request))
        return holding_at([version_from_row(row) for row in rows], at)

    def history(self, subject: str, attribute: str, known_at: int | None) -> list[Version]:
        if known_at is None:
            rows = self._db.rows(CURRENT, (self.tenant, subject, attribute))
        else:
            known = self._db.moment(known_at)
            rows = self._db.rows(_HISTORY_KNOWN, (self.tenant, subject, attribute, known, known))
        return ended_all([version_from_row(row) for row in rows])

    def versions(self, subject: str, attribute: str) -> list[Version]:
        """Every stored version, each with its end as it read while it was visible."""
        found = sorted(self.key_rows(subject, attribute), key=lambda v: (v.recorded_from, v.valid_from))
        return as_last_seen(found)

    def key_rows(self, subject: str, attribute: str) -> list[Version]:
        """In the index's order (no sort: a read converting a key on the fly asks this)."""
        rows = self._db.rows(f"SELECT {VERSION_COLUMNS} FROM assertions WHERE {KEY}", (self.tenant, subject, attribute))
        return [version_from_row(row) for row in rows]

    def key_values(self, subject: str, attribute: str, since: int) -> tuple[list[str], int]:
        at = self._db.moment(since)
        rows = self._db.rows(KEY_VALUES, (at, at, at, at, self.tenant, subject, attribute))
        return list({row[0] for row in rows}), max((int(row[1]) for row in rows), default=-1)

    def query(self, flt: QueryFilter) -> list[Version]:
        moment = self._db.moment
        source, key, narrowing, params = self._query_source(flt)
        clauses = [f"{key}.tenant = ?", *narrowing]
        params = [self.tenant, *params]
        if flt.subject is not None:
            clauses.append(f"{key}.subject = ?")
            params.append(flt.subject)
        if flt.memory_type is not None:
            clauses.append("a.memory_type = ?")
            params.append(flt.memory_type)
        clause, values = timeline_clause(flt, self._db, f"{key}.attribute")
        clauses.append(clause)
        params += values
        if flt.known_at is None:
            clauses.append("a.recorded_to IS NULL")
            seen, known = "n.recorded_to IS NULL", []
        else:
            clauses.append(visible("a"))
            known = [moment(flt.known_at), moment(flt.known_at)]
            params += known
            seen = visible("n")
        if flt.at is not None:
            clauses.append(f"a.valid_from <= ? AND (a.valid_to IS NULL OR a.valid_to > ?) "
                           f"AND {unfollowed('a', seen, self._db.true)}")
            params += [moment(flt.at), moment(flt.at), self.tenant, *known, moment(flt.at)]
        if flt.after is not None:
            subject, attribute, valid_from = flt.after
            if key == "a":
                clauses.append("(a.subject, a.attribute, a.valid_from) > (?, ?, ?)")
                params += [subject, attribute, moment(valid_from)]
            else:  # the key's part alone, so that the key table's index seeks to it
                clauses.append(f"({key}.subject, {key}.attribute) >= (?, ?) "
                               f"AND (({key}.subject, {key}.attribute) > (?, ?) OR a.valid_from > ?)")
                params += [subject, attribute, subject, attribute, moment(valid_from)]
        following = (f"FROM assertions n WHERE n.tenant = ? AND n.subject = a.subject "
                     f"AND n.attribute = a.attribute AND {seen} AND n.valid_from > a.valid_from "
                     "ORDER BY n.valid_from LIMIT 1")
        sql = (f"SELECT {version_columns_of('a')}, (SELECT n.valid_from {following}) AS next_from, "
               f"(SELECT n.source {following}) AS next_source FROM {source} WHERE {' AND '.join(clauses)} "
               f"ORDER BY {key}.subject, {key}.attribute, a.valid_from LIMIT ?")
        found: list[Version] = []
        for row in self._db.rows(sql, (self.tenant, *known, self.tenant, *known, *params, flt.limit)):
            version = version_from_row(row)
            found.append(version if row[-2] is None else cut(version, row[-2], row[-1]))
        return found

    def _query_source(self, flt: QueryFilter) -> tuple[str, str, list[str], list[Any]]:
        """The FROM clause of ``query`` (the versions are ``a``), the alias whose tenant,
        subject and attribute its filters name (here the versions themselves), and any
        condition, with its parameters, that the source adds."""
        return "assertions a", "a", [], []

    def episodes(self, session: str | None, limit: int, newest_first: bool = False) -> list[EpisodeRow]:
        order = " DESC" if newest_first else ""
        if session is None:
            sql = f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? ORDER BY seq{order} LIMIT ?"
            params: tuple[Any, ...] = (self.tenant, limit)
        else:
            sql = (f"SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND session = ? "
                   f"ORDER BY occurred_at{order}, seq{order} LIMIT ?")
            params = (self.tenant, session, limit)
        return [EpisodeRow(*row) for row in self._db.rows(sql, params)]

    def attribute_schemas(self) -> list[AttributeSchema]:
        return self._attribute_schema_rows(None)

    def declared(self, attribute: str) -> AttributeSchema | None:
        found = self._attribute_schema_rows(attribute)
        return found[0] if found else None

    def holders(self, attribute: str, value: str, at: int, known_at: int | None, limit: int) -> list[Version]:
        """Up to ``limit`` versions of the ledger attribute ``attribute`` whose value is
        ``value`` (canonical JSON) and that hold at ``at`` as known at ``known_at``, by
        subject: who names a subject (``linked``), one range of ``assertions_by_value``."""
        moment = self._db.moment
        if known_at is None:
            seen, known, params = "n.recorded_to IS NULL", [], ["a.recorded_to IS NULL"]
        else:
            known = [moment(known_at), moment(known_at)]
            seen, params = visible("n"), [visible("a")]
        sql = (f"SELECT {version_columns_of('a')} FROM assertions a INDEXED BY assertions_by_value "
               f"WHERE a.tenant = ? AND a.attribute{self._db.bytewise} = ? AND a.value = ? "
               f"AND length(a.value) <= {MAX_INDEXED_VALUE} AND {params[0]} AND a.valid_from <= ? "
               f"AND (a.valid_to IS NULL OR a.valid_to > ?) AND {unfollowed('a', seen, self._db.true)} "
               "ORDER BY a.subject LIMIT ?")
        rows = self._db.rows(sql, (self.tenant, attribute, value, *known, moment(at), moment(at), self.tenant, *known,
                                   moment(at), limit))
        return [version_from_row(row) for row in rows]

    def member_keys(self, subject: str, prefix: str) -> list[str]:
        """The ledger attributes of the subject's versions that start with ``prefix`` (the
        members of a set, ``_core.purpose.members_prefix``): one range of the subject's keys.
        Versions, not operations: a member may have been derived by a migration or a merge
        from operations logged under another key."""
        column = f"attribute{self._db.bytewise}"
        rows = self._db.rows(
            f"SELECT DISTINCT {column} FROM assertions WHERE tenant = ? AND subject = ? AND {column} >= ? "
            f"AND {column} < ? ORDER BY {column}", (self.tenant, subject, *prefix_range(prefix)),
        )
        return [str(row[0]) for row in rows]

    def members(self, subject: str, prefix: str, at: int, known_at: int | None) -> list[Version]:
        """The member of each key under ``prefix`` that holds at ``at`` as known at
        ``known_at``, by key: one range of the subject's versions, each end derived from
        the next version of its key (as ``query`` does)."""
        request = Members(subject, prefix, at, known_at)
        return self._held(self._db.answer(request, *members_statement(self._db, self.tenant, request)), at, known_at)

    def holding(
        self, subjects: Sequence[str], attribute: str, at: int, known_at: int | None, *, members: bool = False,
    ) -> list[Version]:
        """For each of ``subjects``, the version of its key ``attribute`` (with ``members``:
        of each key under the prefix ``attribute``, a set's members) holding at ``at`` as
        known at ``known_at``, by subject and key: one statement per chunk of subjects (a
        walk's whole frontier), each end derived from the next version of its key."""
        found: list[Version] = []
        for chunk in chunks(list(dict.fromkeys(subjects))):
            statement = holding_statement(self._db, self.tenant, chunk, attribute, at, known_at, members)
            found += self._held(self._db.rows(*statement), at, known_at)
        return found

    def _held(self, rows: list[tuple[Any, ...]], at: int, known_at: int | None) -> list[Version]:
        """``holding_sql``'s rows as versions: one followed by the next version of its key
        at or before the instant has ended; one whose stored end lies past its follower's
        start is cut there."""
        moment = self._db.moment
        known = [] if known_at is None else [moment(known_at), moment(known_at)]
        found: list[Version] = []
        for row in rows:
            version, following = version_from_row(row), row[-1]
            if following is not None:
                if following <= at:
                    continue  # the next version of the key has started: this one has ended
                if version.valid_to is None or version.valid_to > following:
                    source = self._db.row(follower_source_sql(known_at is not None), (
                        self.tenant, version.subject, version.attribute, *known, moment(following)))
                    version = cut(version, following, str(source[0]) if source else "")
            found.append(version)
        return found

    def set_history(self, subject: str, prefix: str, known_at: int | None) -> list[Version]:
        """Every assertion of every member under ``prefix``, by ``valid_from`` and then by
        the value's canonical JSON text."""
        versions = [version for attribute in self.member_keys(subject, prefix)
                    for version in self.history(subject, attribute, known_at)]
        return sorted(versions, key=lambda v: (v.valid_from, v.value))

    def memory_types(self) -> list[MemoryTypeSchema]:
        return self._memory_type_rows("", ())
