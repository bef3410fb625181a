"""The ledger's write statements, written once: episodes, the operation log, assertion
versions and the tenant's schema as the write unit of work changes them (over the reads
and shared statements of ``ledger.py``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..._core.rules import Operation, Version, ended_all
from ..._core.schema import AttributeSchema, MemoryTypeSchema
from .._records import EpisodeRow
from .._rows import EPISODE_COLUMNS, version_from_row
from .counters import draw_numbers
from .ledger import CURRENT, KEY, LAST_RECORDED, MAX_INDEXED_VALUE, OPERATION_FIELDS, SCHEMA_VERSION, LedgerReads


class LedgerWrites(LedgerReads):
    """The write unit of work's ledger statements; versions are inserted and retired by
    the backend (``insert_versions``, ``retire``), which batches them its own way."""

    if TYPE_CHECKING:  # each backend inserts versions its own way (executemany, multi-row VALUES)
        def insert_versions(self, versions: list[Version]) -> None: ...

    def hold_schema(self) -> None:
        """Nothing to wait for where a write transaction holds the whole database (SQLite's
        ``BEGIN IMMEDIATE``): no other unit of work runs beside it."""

    def insert_episodes(self, rows: Sequence[EpisodeRow]) -> None:
        moment = self._db.moment
        self._db.run_many(
            f"INSERT INTO episodes ({EPISODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(row.tenant, row.episode_id, moment(row.occurred_at), moment(row.recorded_at), row.text,
              row.speaker, row.kind, row.session, row.metadata, row.schema_version, row.retention,
              moment(row.lost_at)) for row in rows],
        )

    def delete_episode(self, episode_id: str) -> int:
        return self._db.count("DELETE FROM episodes WHERE tenant = ? AND episode_id = ?", (self.tenant, episode_id))

    def _stored_schema_version(self) -> int:
        row = self._db.row(SCHEMA_VERSION, (self.tenant,))
        return int(row[0]) if row else 0

    def bump_schema_version(self) -> int:
        row = self._db.row(
            "INSERT INTO tenant_schema AS t (tenant, version) VALUES (?, 1) "
            "ON CONFLICT (tenant) DO UPDATE SET version = t.version + 1 RETURNING version",
            (self.tenant,),
        )
        assert row is not None
        return int(row[0])

    def put_attribute_schema(self, schema: AttributeSchema) -> None:
        self._db.run(
            "INSERT INTO attribute_schemas (tenant, attribute, value_type, memory_type, sensitive, "
            "description, schema_version, cardinality, renamed_to) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (tenant, attribute) DO UPDATE SET value_type = excluded.value_type, "
            "memory_type = excluded.memory_type, sensitive = excluded.sensitive, "
            "description = excluded.description, schema_version = excluded.schema_version, "
            "cardinality = excluded.cardinality, renamed_to = excluded.renamed_to",
            (self.tenant, schema.attribute, schema.value_type.value if schema.value_type else None,
             schema.memory_type, bool(schema.sensitive), schema.description, schema.schema_version,
             schema.cardinality.value, schema.renamed_to),
        )

    def put_memory_type(self, schema: MemoryTypeSchema) -> None:
        self._db.run(
            "INSERT INTO memory_types (tenant, name, json_schema, schema_version) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (tenant, name) DO UPDATE SET json_schema = excluded.json_schema, "
            "schema_version = excluded.schema_version",
            (self.tenant, schema.name,
             json.dumps(schema.json_schema) if schema.json_schema is not None else None,
             schema.schema_version),
        )

    def current(self, subject: str, attribute: str) -> list[Version]:
        """The current versions of a key, ordered by ``valid_from``, ends derived."""
        return ended_all([version_from_row(row) for row in self._db.rows(CURRENT, (self.tenant, subject, attribute))])

    def last_recorded_at(self, subject: str, attribute: str) -> int | None:
        row = self._db.row(LAST_RECORDED, (self.tenant, subject, attribute))
        return int(row[0]) if row else None

    def draw_operation_numbers(self, count: int) -> list[int]:
        """The tenant's next ``count`` operation numbers, ascending."""
        return draw_numbers(self._db, self.tenant, "operations", count)

    def append_operation(self, op: Operation) -> int:
        moment = self._db.moment
        [seq] = self.draw_operation_numbers(1)
        self._db.run(
            f"INSERT INTO operations ({OPERATION_FIELDS}, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (self.tenant, op.subject, op.attribute, op.kind.value, moment(op.valid_at), op.value, op.source,
             moment(op.recorded_at), op.memory_type, op.confidence, op.schema_version, moment(op.expires_at), seq),
        )
        return seq

    def relation_attributes(self) -> list[str]:
        """The tenant's attributes declared with type subject."""
        rows = self._db.rows("SELECT attribute FROM attribute_schemas WHERE tenant = ? AND value_type = 'subject' "
                             "ORDER BY attribute", (self.tenant,))
        return [str(row[0]) for row in rows]

    def attribute_in_use(self, attribute: str) -> bool:
        """Whether any key of the tenant is of ``attribute``: itself, a purpose's timeline
        of it, or a member of its set."""
        row = self._db.row(
            "SELECT 1 FROM ledger_keys WHERE tenant = ? AND (attribute = ? OR substr(attribute, 1, ?) IN (?, ?)) "
            "LIMIT 1", (self.tenant, attribute, len(attribute) + 1, f"{attribute}\x1f", f"{attribute}\x1e"),
        )
        return row is not None

    def keys_naming(self, attribute: str, value: str) -> list[tuple[str, str]]:
        """Keys of ``attribute`` (its general timeline, its members, its purposes'
        timelines) with a version, in any transaction time, whose value is ``value``."""
        column = f"attribute{self._db.bytewise}"
        head = (f"SELECT DISTINCT subject, attribute FROM assertions INDEXED BY assertions_by_value WHERE tenant = ? "
                f"AND value = ? AND length(value) <= {MAX_INDEXED_VALUE} AND ")
        exact = self._db.rows(f"{head}{column} IN (?, ?)", (self.tenant, value, attribute, f"{attribute}\x1e{value}"))
        scoped = self._db.rows(f"{head}{column} >= ? AND {column} < ?",
                               (self.tenant, value, f"{attribute}\x1f", f"{attribute}\x20"))
        return sorted({(str(row[0]), str(row[1])) for row in exact + scoped})

    def keys_of_subject(self, subject: str) -> list[tuple[str, str]]:
        rows = self._db.rows("SELECT DISTINCT attribute FROM operations WHERE tenant = ? AND subject = ?",
                             (self.tenant, subject))
        return [(subject, row[0]) for row in rows]

    def keys_of_source(self, episode_id: str) -> list[tuple[str, str]]:
        rows = self._db.rows("SELECT DISTINCT subject, attribute FROM operations WHERE tenant = ? AND source = ?",
                             (self.tenant, episode_id))
        return [(row[0], row[1]) for row in rows]

    def delete_operations_of_subject(self, subject: str) -> int:
        return self._db.count("DELETE FROM operations WHERE tenant = ? AND subject = ?", (self.tenant, subject))

    def delete_operations_of_source(self, episode_id: str) -> int:
        return self._db.count("DELETE FROM operations WHERE tenant = ? AND source = ?", (self.tenant, episode_id))

    def replace_versions(self, subject: str, attribute: str, versions: list[Version]) -> None:
        self._db.run(f"DELETE FROM assertions WHERE {KEY}", (self.tenant, subject, attribute))
        if versions:
            self.insert_versions(versions)
