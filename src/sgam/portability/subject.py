"""A subject's export: everything a tenant holds about one subject, in the export format,
as the answer to an access request (GDPR Art. 15 and 20).

It holds the subject's facts under every name it has had (the id, its aliases then and
now), the facts of other subjects whose value names it (relations), the episodes that
back any of them, the subject's names, alias steps and consents, and held extraction
candidates about it; nothing else of another subject. The operation log is read twice in
one snapshot: once to learn which operations and episodes are the subject's, once to
write them in the format's order.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from .._core.values import check_subject, check_tenant
from ..ledger.service import Ledger
from ..store import Reader
from ..store._portable import LEDGER_TABLES, TABLES_BY_NAME, PortableTable
from .exporter import KEY_CHECK, ExportSummary, Progress, Ranks, table_lines
from .format import ExportWriter, Header, instant_text, open_bytes

SUBJECT_TABLES = (*LEDGER_TABLES, TABLES_BY_NAME["held_candidates"])
"""The tables a subject's rows can be in (the schema's and the tombstones hold none)."""
BY_SUBJECT = {"operations", "assertions", "quarantine", "subject_names", "subject_collisions", "consents",
              "held_candidates", "backfill_holdouts"}
"""Tables whose rows are a subject's by their ``subject`` column (or, for a relation's
operations and versions, by the subject their value names)."""


class _About:
    """What of the tenant is about the subject: its names, the relation attributes whose
    values may name it, and (after the first pass) its operations and their episodes."""

    def __init__(self, reader: Reader, subject: str) -> None:
        meant = reader.resolve_subject(subject)
        names = {subject, meant, *reader.names_meaning(meant)}
        for step in reader.alias_steps():
            if step.subject in names or step.name in names:
                names.update((step.name, step.subject))
        self.names = names
        self.named_by = {json.dumps(name, ensure_ascii=False) for name in names}
        self.relations = {schema.attribute for schema in reader.attribute_schemas() if schema.value_type == "subject"}
        self.operations: set[int] = set()
        self.episodes: set[str] = set()

    def fact(self, row: dict[str, Any]) -> bool:
        if row["subject"] in self.names:
            return True
        attribute = str(row["attribute"]).split("@", 1)[0]
        return attribute in self.relations and row["value"] in self.named_by

    def keep(self, table: PortableTable, row: dict[str, Any]) -> bool:
        name = table.name
        if name in ("operations", "assertions", "quarantine"):
            return self.fact(row)
        if name in ("episodes", "episode_derivations"):
            return row["episode_id"] in self.episodes
        if name == "converted_values":
            return int(row["seq"]) in self.operations
        if name in ("subject_aliases", "subject_resolution"):
            return row["name"] in self.names or row["subject"] in self.names
        if name in BY_SUBJECT:
            return row["subject"] in self.names
        return False


def export_subject(ledger: Ledger, tenant: str, subject: str, path: str | Path, *,
                   progress: Progress | None = None) -> ExportSummary:
    """Write what ``tenant`` holds about ``subject`` to ``path`` (``-``: standard output)."""
    tenant = check_tenant(tenant)
    subject = check_subject(subject)
    from .. import __version__

    backend_name = type(ledger.backend).__name__.removesuffix("Backend").lower()
    with ledger.backend.read(tenant) as reader, tempfile.TemporaryDirectory(prefix="sgam-subject-") as folder:
        rows = reader.portable()
        about = _About(reader, subject)
        operations = TABLES_BY_NAME["operations"]
        for stored in rows.table_rows(operations):
            row = dict(zip(operations.columns, stored[len(operations.order):], strict=True))
            if about.fact(row):
                about.operations.add(int(row["seq"]))
                about.episodes.add(str(row["source"]))
        spooled = Path(folder) / "records.jsonl"
        counts: dict[str, int] = {}
        ranks = Ranks(rows)
        with spooled.open("w", encoding="utf-8", newline="\n") as out:
            for table in SUBJECT_TABLES:
                for line in table_lines(rows, table, ranks, about.keep):
                    out.write(line)
                    counts[table.name] = counts.get(table.name, 0) + 1
        header = Header(__version__, backend_name, ledger.backend.schema_version(), tenant,
                        instant_text(ledger.now()), False, counts, ledger.digests.of(tenant, *KEY_CHECK), subject)
        total = sum(counts.values())
        with open_bytes(path, "w") as target, spooled.open("r", encoding="utf-8", newline="\n") as records:
            writer = ExportWriter(target)
            writer.line(header.record())
            for line in records:
                writer.raw(line)
                if progress is not None and writer.records % 1000 == 0:
                    progress(writer.records - 1, total)
            digest = writer.close()
    if progress is not None:
        progress(total, total)
    return ExportSummary(tenant, total, counts, digest)
