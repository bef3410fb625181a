"""The export format (docs/portability.md): JSON lines, a header, one record per stored
row, and a closing record whose SHA-256 covers every line before it.

This module turns a store's rows into records and back (``encode_row``, ``decode_row``),
writes lines while hashing them (``ExportWriter``) and reads a file twice: once to check
it whole (``check_file``), once to apply it (``records``). Nothing is written to a
store by a file that ``check_file`` refused.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, cast

from .._core.errors import ValidationError
from .._core.time import from_micros, to_micros
from ..store._portable import RANKED, TABLES_BY_NAME, PortableTable

FORMAT = "sgam-export"
FORMAT_VERSION = 1
"""The version this sgam writes and the only one it reads."""
STDIO = "-"


_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")


def instant_text(micros: int) -> str:
    """RFC 3339 in UTC with microseconds, the year always four digits (year 1 included,
    which the ledger uses for "since always")."""
    return from_micros(micros).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def instant_micros(text: object, where: str) -> int:
    if not isinstance(text, str) or not _INSTANT.fullmatch(text):
        raise ValidationError(where, text, "must be an instant, RFC 3339 UTC with microseconds "
                                           "(e.g. 2026-07-01T09:00:00.000000Z)")
    try:
        moment = datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC)
    except ValueError:
        raise ValidationError(where, text, "is not a calendar instant") from None
    return to_micros(moment)


def value_text(value: Any) -> str:
    """A value's canonical JSON text, as the ledger stores it."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def encode_row(table: PortableTable, row: Sequence[Any]) -> dict[str, Any]:
    """A stored row (``columns`` order) as a record's ``row`` object."""
    out: dict[str, Any] = {}
    for column, value in zip(table.columns, row, strict=True):
        if value is None:
            out[column] = None
        elif column in table.times:
            out[column] = instant_text(int(value))
        elif column in table.flags:
            out[column] = bool(value)
        elif column in table.blobs:
            out[column] = base64.b64encode(bytes(value)).decode("ascii")
        elif column in table.values:
            out[column] = json.loads(value)
        else:
            out[column] = value
    return out


_PLAIN = (str, int, float)


def decode_row(table: PortableTable, record: Mapping[str, Any], where: str) -> list[Any]:
    """A record's ``row`` as stored values in ``columns`` order; a field of the wrong
    kind is refused, named by its line and column."""
    expected = set(table.columns) | ({RANKED[table.name]} if table.name in RANKED else set())
    if set(record) != expected:
        missing = sorted(expected - set(record))
        extra = sorted(set(record) - expected)
        raise ValidationError(f"{where}.row", table.name,
                              f"must hold exactly the columns of {table.name} (missing {missing}, unknown {extra})")
    if table.name in RANKED:
        rank = record[RANKED[table.name]]
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
            raise ValidationError(f"{where}.row.{RANKED[table.name]}", rank, "must be a rank, a whole number from 1")
    out: list[Any] = []
    for column in table.columns:
        value = record[column]
        field = f"{where}.row.{column}"
        if value is None:
            out.append(None)
        elif column in table.times:
            out.append(instant_micros(value, field))
        elif column in table.flags:
            if not isinstance(value, bool):
                raise ValidationError(field, value, "must be true or false")
            out.append(value)
        elif column in table.blobs:
            if not isinstance(value, str):
                raise ValidationError(field, value, "must be base64 text")
            try:
                out.append(base64.b64decode(value, validate=True))
            except ValueError:
                raise ValidationError(field, value, "must be base64 text") from None
        elif column in table.values:
            out.append(value_text(value))
        elif isinstance(value, bool) or not isinstance(value, _PLAIN):
            raise ValidationError(field, value, "must be text or a number")
        else:
            out.append(value)
    return out


@dataclass(frozen=True)
class Header:
    """What the first line says: the source and what follows."""

    sgam: str
    backend: str
    schema_version: int
    tenant: str
    exported_at: str
    threads: bool
    counts: dict[str, int]
    erasure_key_check: str
    subject: str | None = None
    """Set in a subject's export (what the tenant holds about one subject), which no
    import accepts: it is an answer to an access request, not a tenant."""

    def record(self) -> dict[str, Any]:
        subject = {} if self.subject is None else {"subject": self.subject}
        return {"format": FORMAT, "version": FORMAT_VERSION, "sgam": self.sgam,
                "source": {"backend": self.backend, "schema_version": self.schema_version,
                           "exported_at": self.exported_at},
                "tenant": self.tenant, **subject, "threads": self.threads, "counts": self.counts,
                "erasure_key_check": self.erasure_key_check}


def _header(line: dict[str, Any]) -> Header:
    if line.get("format") != FORMAT:
        raise ValidationError("line 1.format", line.get("format"), f"must be {FORMAT!r}: not an sgam export")
    if line.get("version") != FORMAT_VERSION:
        raise ValidationError("line 1.version", line.get("version"),
                              f"is not a format version this sgam reads (it reads {FORMAT_VERSION})")
    try:
        source = line["source"]
        counts = line["counts"]
        header = Header(str(line["sgam"]), str(source["backend"]), int(source["schema_version"]),
                        str(line["tenant"]), str(source["exported_at"]), bool(line["threads"]),
                        {str(k): int(v) for k, v in counts.items()}, str(line["erasure_key_check"]),
                        None if line.get("subject") is None else str(line["subject"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValidationError("line 1", "<header>", f"is not a whole header ({exc!r})") from None
    unknown = sorted(set(header.counts) - set(TABLES_BY_NAME))
    if unknown:
        raise ValidationError("line 1.counts", unknown[0], "names no table of the format")
    return header


@contextmanager
def open_text(path: str | Path, mode: str) -> Iterator[IO[str]]:
    """``path`` as text (gzip when it ends in ``.gz``; standard input or output for ``-``)."""
    import sys

    if str(path) == STDIO:
        yield sys.stdout if mode == "w" else sys.stdin
        return
    name = str(path)
    handle: IO[str]
    if name.endswith(".gz"):
        handle = cast("IO[str]", gzip.open(name, mode + "t", encoding="utf-8", newline="\n"))
    else:
        handle = open(name, mode, encoding="utf-8", newline="\n")  # noqa: SIM115 - closed below
    try:
        yield handle
    finally:
        handle.close()


class ExportWriter:
    """Writes lines and hashes them; ``close`` adds the closing record."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._digest = hashlib.sha256()
        self.records = 0

    def line(self, record: dict[str, Any]) -> None:
        self.raw(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    def raw(self, text: str) -> None:
        """A line already encoded (ending in a newline)."""
        self._digest.update(text.encode())
        self._out.write(text)
        self.records += 1

    def row(self, table: str, row: dict[str, Any]) -> None:
        self.line({"table": table, "row": row})

    def close(self) -> str:
        digest = self._digest.hexdigest()
        self._out.write(json.dumps({"end": True, "records": self.records, "sha256": digest},
                                   separators=(",", ":")) + "\n")
        self._out.flush()
        return digest


def _parsed(text: str, number: int) -> dict[str, Any]:
    try:
        line = json.loads(text)
    except ValueError:
        raise ValidationError(f"line {number}", text[:80], "is not JSON") from None
    if not isinstance(line, dict):
        raise ValidationError(f"line {number}", text[:80], "must be a JSON object")
    return line


def check_file(path: str | Path) -> Header:
    """Read the whole file once: its header, every record's shape, the counts the header
    gives and the closing record's digest. Raises ``ValidationError`` naming the first
    fault; a file that passes is what ``records`` will apply."""
    digest = hashlib.sha256()
    header: Header | None = None
    counts: dict[str, int] = {}
    closing: dict[str, Any] | None = None
    number = 0
    with open_text(path, "r") as handle:
        for number, text in enumerate(_lines(handle), start=1):
            if closing is not None:
                raise ValidationError(f"line {number}", text[:80], "follows the closing record")
            line = _parsed(text, number)
            if "end" in line:
                closing = line
                continue
            digest.update(text.encode())
            if header is None:
                header = _header(line)
                continue
            table = _table_of(line, number)
            decode_row(table, line["row"], f"line {number}")
            counts[table.name] = counts.get(table.name, 0) + 1
    if header is None:
        raise ValidationError("file", str(path), "is empty: not an sgam export")
    if closing is None:
        raise ValidationError("file", str(path), "has no closing record: it is truncated")
    if closing.get("sha256") != digest.hexdigest() or closing.get("records") != number - 1:
        raise ValidationError(f"line {number}.sha256", closing.get("sha256"),
                              "does not match the file's content: it was altered or cut")
    for name in sorted(set(counts) | set(header.counts)):
        if counts.get(name, 0) != header.counts.get(name, 0):
            raise ValidationError(f"line 1.counts.{name}", header.counts.get(name, 0),
                                  f"but the file holds {counts.get(name, 0)} records of {name}")
    return header


def _table_of(line: dict[str, Any], number: int) -> PortableTable:
    name = line.get("table")
    table = TABLES_BY_NAME.get(name) if isinstance(name, str) else None
    if table is None:
        raise ValidationError(f"line {number}.table", name, "names no table of the format")
    if not isinstance(line.get("row"), dict):
        raise ValidationError(f"line {number}.row", line.get("row"), "must be a JSON object")
    return table


def _lines(handle: IO[str]) -> Iterator[str]:
    for text in handle:
        if not text.endswith("\n"):
            yield text  # a last line cut short: its digest cannot match
            return
        yield text


def records(path: str | Path) -> Iterator[tuple[PortableTable, list[Any], int | None]]:
    """The rows of a file ``check_file`` accepted, in file order, as stored values, each
    with its rank in its table when other rows name it (else None)."""
    with open_text(path, "r") as handle:
        for number, text in enumerate(handle, start=1):
            line = json.loads(text)
            if number == 1 or "end" in line:
                continue
            table = TABLES_BY_NAME[line["table"]]
            rank = line["row"].get(RANKED[table.name]) if table.name in RANKED else None
            yield table, decode_row(table, line["row"], f"line {number}"), rank
