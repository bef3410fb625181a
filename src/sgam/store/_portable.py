"""The tables of a tenant's rows that the export format carries, and how each column is
carried (``_sql/portable.py`` reads and writes them; ``sgam.portability`` turns rows
into records). Nothing here runs a statement."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PortableTable:
    """One table of a tenant's rows as the export format carries it.

    ``columns`` are carried, in this order; ``order`` is the table's paging key, unique in
    the tenant (``generated``, the store's own key, pages but is never carried: an import
    lets the destination make it). ``operations`` columns hold an operation's sequence
    number, ``after`` columns the last operation before a step (both renumbered, since
    sequence numbers are the store's own); ``parents`` maps a column to the table whose
    generated key it names."""

    name: str
    columns: tuple[str, ...]
    order: tuple[str, ...]
    times: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    blobs: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()
    operations: frozenset[str] = frozenset()
    after: frozenset[str] = frozenset()
    generated: str | None = None
    parents: dict[str, str] = field(default_factory=dict)
    outlives_erasure: bool = False
    """Rows an erasure leaves behind (tombstones, the audit log): a tenant holding only
    these holds no data, and an import adds to them, a row already there kept as it is."""


def _table(name: str, columns: str, order: str, *, times: str = "", flags: str = "", blobs: str = "",
           values: str = "", operations: str = "", after: str = "", generated: str | None = None,
           parents: dict[str, str] | None = None, outlives_erasure: bool = False) -> PortableTable:
    def names(text: str) -> tuple[str, ...]:
        return tuple(part.strip() for part in text.split(",") if part.strip())

    return PortableTable(name, names(columns), names(order), frozenset(names(times)), frozenset(names(flags)),
                         frozenset(names(blobs)), frozenset(names(values)), frozenset(names(operations)),
                         frozenset(names(after)), generated, parents or {}, outlives_erasure)


LEDGER_TABLES: tuple[PortableTable, ...] = (
    _table("tenant_schema", "version", "tenant"),
    _table("memory_types", "name, json_schema, schema_version", "name"),
    _table("attribute_schemas", "attribute, value_type, memory_type, sensitive, description, schema_version, "
           "cardinality, renamed_to", "attribute", flags="sensitive"),
    _table("retention_classes", "name, ttl, on_expiry, declared_at", "name", times="declared_at"),
    _table("episodes", "episode_id, occurred_at, recorded_at, text, speaker, kind, session, metadata, "
           "schema_version, retention, lost_at", "seq", times="occurred_at, recorded_at, lost_at", generated="seq"),
    _table("episode_derivations", "episode_id, source_id", "episode_id, source_id"),
    _table("operations", "seq, subject, attribute, kind, valid_at, value, source, recorded_at, memory_type, "
           "confidence, schema_version, expires_at", "seq", times="valid_at, recorded_at, expires_at",
           values="value", operations="seq"),
    _table("assertions", "assertion_id, subject, attribute, value, memory_type, valid_from, valid_to, "
           "recorded_from, recorded_to, source, confidence, schema_version, supersedes, origin, closed_by",
           "row_id", times="valid_from, valid_to, recorded_from, recorded_to", values="value",
           operations="assertion_id, supersedes", generated="row_id"),
    _table("converted_values", "seq, step, value, reason", "seq, step", values="value", operations="seq"),
    _table("quarantine", "seq, subject, attribute, value, since", "seq", times="since", values="value",
           operations="seq"),
    _table("ledger_changes", "seq, kind, attribute, detail, recorded_at, after_seq, decided_by, origin", "seq",
           times="recorded_at", after="after_seq"),
    _table("subject_aliases", "seq, name, subject, recorded_at, after_seq, decided_by, ended_step, ended_at, "
           "ended_after_seq", "seq", times="recorded_at, ended_at", after="after_seq, ended_after_seq"),
    _table("subject_resolution", "name, subject, recorded_from, recorded_to", "name, recorded_from",
           times="recorded_from, recorded_to"),
    _table("attribute_resolution", "name, attribute, recorded_from, recorded_to", "name, recorded_from",
           times="recorded_from, recorded_to"),
    _table("subject_names", "subject, display", "subject"),
    _table("subject_collisions", "subject, stored", "subject, stored"),
    _table("consents", "subject, purpose, granted, changed_at, seq", "subject, purpose", times="changed_at",
           flags="granted"),
    _table("backfills", "seq, attributes, after_subject, subjects_done, subjects_total, batches_done, started_at, "
           "finished_at, conversion, screened_at", "seq", times="started_at, finished_at, screened_at"),
    _table("backfill_holdouts", "seq, subject", "seq, subject"),
    _table("tombstones", "digest", "digest", outlives_erasure=True),
)
"""The ledger: schema, episodes, the operation log and what is derived from it, the
recorded steps, names, consents and tombstones; in an order an import can insert them
(episodes before the operations that cite them, operations before their versions)."""

FEATURE_TABLES: tuple[PortableTable, ...] = (
    _table("documents", "path, live, revision, content, size, retention, source, reviewed_at, created_at, "
           "updated_at, kept_since", "doc_id", times="reviewed_at, created_at, updated_at, kept_since",
           flags="live", generated="doc_id"),
    _table("document_revisions", "doc_id, revision, path, op, content, author, episode, call_id, recorded_at",
           "doc_id, revision", times="recorded_at", parents={"doc_id": "documents"}),
    _table("document_chunks", "doc_id, revision, path, start_line, end_line, text", "chunk_id",
           generated="chunk_id", parents={"doc_id": "documents"}),
    _table("store_items", "namespace, key, value, created_at, updated_at, expires_at, ttl_minutes, index_text, "
           "vectors, dims", "namespace, key", times="created_at, updated_at, expires_at", blobs="vectors"),
    _table("held_candidates", "episode_id, hold, status, subject, attribute, change, value, valid_from, confidence, "
           "stated, evidence, created_at, resolved_at", "seq", times="valid_from, created_at, resolved_at",
           flags="stated", generated="seq"),
    _table("extractions", "episode_id, attempt, recorded_at, status, error, model, raw_reply, prompt_tokens, "
           "completion_tokens, latency_ms, decisions", "seq", times="recorded_at", generated="seq"),
    _table("extraction_jobs", "episode_id, status, enqueued_at, attempts, lease_owner, lease_expires, last_error",
           "seq", times="enqueued_at, lease_expires", generated="seq"),
    _table("actions", "action_key, request, status, result, error, attempts, started_at, finished_at, thread_id",
           "seq", times="started_at, finished_at", generated="seq"),
    _table("audit_log", "at, action, call, target, rows, detail", "seq", times="at", generated="seq",
           outlives_erasure=True),
)
"""Documents with every revision, LangGraph store items, the extraction path's records
and review queue, recorded actions and the audit log."""

THREAD_TABLES: tuple[PortableTable, ...] = (
    _table("saver_threads", "thread_id, retention", "thread_id"),
    _table("saver_subjects", "subject, thread_id", "subject, thread_id"),
    _table("saver_checkpoints", "thread_id, checkpoint_ns, checkpoint_id, parent_id, run_id, kind, body, "
           "metadata_kind, metadata, created_at", "thread_id, checkpoint_ns, checkpoint_id", times="created_at",
           blobs="body, metadata"),
    _table("saver_writes", "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, kind, body, task_path",
           "thread_id, checkpoint_ns, checkpoint_id, task_id, idx", blobs="body"),
)
"""LangGraph checkpoint threads (an export may leave them out)."""

PORTABLE_TABLES: tuple[PortableTable, ...] = LEDGER_TABLES + FEATURE_TABLES + THREAD_TABLES
TABLES_BY_NAME = {table.name: table for table in PORTABLE_TABLES}
RANKED: dict[str, str] = {
    table.name: table.generated for table in PORTABLE_TABLES
    if table.generated and any(table.name in other.parents.values() for other in PORTABLE_TABLES)}
"""Tables whose generated key other rows name: a record of one carries its rank in the
table under that key's name (``documents``: ``doc_id``)."""

STORE_TABLES: tuple[PortableTable, ...] = (
    _table("search_embedders", "active", "tenant"),
    _table("episode_vectors", "model", "seq, model"),
    _table("assertion_vectors", "model", "row_id, model"),
    _table("document_vectors", "model", "chunk_id, model"),
    _table("api_keys", "key_id", "key_id"),
    _table("idempotency_keys", "idempotency_key", "idempotency_key"),
)
"""A tenant's rows that are a store's own and never carried: search vectors (rebuilt by
the destination's embedder), API keys and idempotency records. Named so that erasing a
moved tenant from its source removes them too."""
