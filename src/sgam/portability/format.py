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
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
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
    return _canonical(value)


_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_text: Callable[[str], str] = json.encoder.encode_basestring


@lru_cache(maxsize=8192)
def _instant_text(micros: int) -> str:
    return instant_text(micros)


def _as_instant(value: Any) -> str:
    return '"' + _instant_text(int(value)) + '"'


def _as_flag(value: Any) -> str:
    return "true" if value else "false"


def _as_blob(value: Any) -> str:
    return '"' + base64.b64encode(bytes(value)).decode("ascii") + '"'


def _as_value(value: Any) -> str:
    """Stored canonical JSON text goes into the line as it is: it is already the
    compact, key-sorted text that parsing and encoding it again would give."""
    return value if type(value) is str else _canonical(value)


def _as_plain(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return _text(value)
    if kind is int:
        return int.__repr__(value)
    return _compact(value)


class RowEncoder:
    """Turns a stored row (``columns`` order) into its line of the file, text built
    directly: one small function per column chosen once per table."""

    def __init__(self, table: PortableTable) -> None:
        self._prefix = '{"table":' + _text(table.name) + ',"row":{'
        self._ranked = '"' + RANKED[table.name] + '":' if table.name in RANKED else None
        self._fields = tuple(('"' + column + '":', _column_encoder(table, column)) for column in table.columns)

    def line(self, row: Sequence[Any], rank: int | None = None) -> str:
        parts = [key + ("null" if value is None else encode(value))
                 for (key, encode), value in zip(self._fields, row, strict=True)]
        head = self._prefix if self._ranked is None else f"{self._prefix}{self._ranked}{rank},"
        return head + ",".join(parts) + "}}\n"


def _column_encoder(table: PortableTable, column: str) -> Callable[[Any], str]:
    if column in table.times:
        return _as_instant
    if column in table.flags:
        return _as_flag
    if column in table.blobs:
        return _as_blob
    if column in table.values:
        return _as_value
    return _as_plain


_PLAIN = (str, int, float)


@lru_cache(maxsize=8192)
def _parsed_instant(text: str) -> int | None:
    """Microseconds of an instant's text, None when it is not one (kept for repeats:
    a tenant's instants recur across tables)."""
    if not _INSTANT.fullmatch(text):
        return None
    try:
        moment = datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC)
    except ValueError:
        return None
    return to_micros(moment)


class _Refused(Exception):
    """A field's fault, before the field is named (naming it costs text per field)."""

    def __init__(self, rule: str) -> None:
        self.rule = rule


def _from_instant(value: Any) -> Any:
    micros = _parsed_instant(value) if type(value) is str else None
    if micros is None:
        try:
            instant_micros(value, "")
        except ValidationError as refused:
            raise _Refused(refused.rule) from None
    return micros


def _from_flag(value: Any) -> Any:
    if not isinstance(value, bool):
        raise _Refused("must be true or false")
    return value


def _from_blob(value: Any) -> Any:
    if not isinstance(value, str):
        raise _Refused("must be base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        raise _Refused("must be base64 text") from None


def _from_plain(value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, _PLAIN):
        raise _Refused("must be text or a number")
    return value


class RowDecoder:
    """Turns a record's ``row`` into stored values in ``columns`` order, refusing a field
    of the wrong kind by its line and column; the checks are chosen once per table."""

    def __init__(self, table: PortableTable) -> None:
        self._table = table
        self._rank = RANKED.get(table.name)
        self._expected = frozenset(table.columns) | ({self._rank} if self._rank else frozenset())
        self._fields = tuple((column, _column_decoder(table, column)) for column in table.columns)

    def rank(self, record: Mapping[str, Any]) -> int | None:
        return None if self._rank is None else cast("int", record[self._rank])

    def row(self, record: Mapping[str, Any], number: int) -> list[Any]:
        """The stored values of line ``number``'s record."""
        table = self._table
        where = f"line {number}"
        if record.keys() != self._expected:
            missing = sorted(self._expected - set(record))
            extra = sorted(set(record) - self._expected)
            raise ValidationError(f"{where}.row", table.name,
                                  f"must hold exactly the columns of {table.name} (missing {missing}, unknown {extra})")
        if self._rank is not None:
            rank = record[self._rank]
            if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
                raise ValidationError(f"{where}.row.{self._rank}", rank, "must be a rank, a whole number from 1")
        out: list[Any] = []
        append = out.append
        for column, decode in self._fields:
            value = record[column]
            if value is None:
                append(None)
                continue
            try:
                append(decode(value))
            except _Refused as refused:
                raise ValidationError(f"{where}.row.{column}", value, refused.rule) from None
        return out


def _column_decoder(table: PortableTable, column: str) -> Callable[[Any], Any]:
    if column in table.times:
        return _from_instant
    if column in table.flags:
        return _from_flag
    if column in table.blobs:
        return _from_blob
    if column in table.values:
        return _canonical
    return _from_plain


ENCODERS = {table.name: RowEncoder(table) for table in TABLES_BY_NAME.values()}
DECODERS = {table.name: RowDecoder(table) for table in TABLES_BY_NAME.values()}


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


@contextmanager
def open_bytes(path: str | Path, mode: str = "r") -> Iterator[IO[bytes]]:
    """``path`` as bytes to read or (``mode`` ``w``) write (gzip when it ends in ``.gz``;
    standard input or output for ``-``)."""
    import sys

    if str(path) == STDIO:
        yield sys.stdout.buffer if mode == "w" else sys.stdin.buffer
        return
    name = str(path)
    handle = cast("IO[bytes]", gzip.open(name, mode + "b")) if name.endswith(".gz") else open(name, mode + "b")  # noqa: SIM115
    try:
        yield handle
    finally:
        handle.close()


class ExportWriter:
    """Writes lines as UTF-8 and hashes them; ``close`` adds the closing record. Lines
    come as text or as bytes the database wrote, hashed and written as they come."""

    def __init__(self, out: IO[bytes]) -> None:
        self._out = out
        self._digest = hashlib.sha256()
        self.records = 0

    def line(self, record: dict[str, Any]) -> None:
        self.raw(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    def raw(self, text: str) -> None:
        """A line already encoded (ending in a newline)."""
        self.encoded(text.encode(), 1)

    def lines(self, texts: list[str]) -> None:
        """Lines already encoded, written and hashed as one piece."""
        self.encoded("".join(texts).encode(), len(texts))

    def encoded(self, data: bytes, records: int) -> None:
        """``records`` whole lines as UTF-8."""
        self._digest.update(data)
        self._out.write(data)
        self.records += records

    def close(self) -> str:
        digest = self._digest.hexdigest()
        self._out.write(json.dumps({"end": True, "records": self.records, "sha256": digest},
                                   separators=(",", ":")).encode() + b"\n")
        self._out.flush()
        return digest


def _parsed(text: str | bytes, number: int) -> dict[str, Any]:
    try:
        line = json.loads(text)
    except ValueError:
        raise ValidationError(f"line {number}", text[:80], "is not JSON") from None
    if not isinstance(line, dict):
        raise ValidationError(f"line {number}", text[:80], "must be a JSON object")
    return line


CHUNK = 1 << 20
"""Bytes read at a time while the first pass hashes the file."""


def check_file(path: str | Path) -> Header:
    """The first pass, before anything is written: the header and the closing record's
    digest over every byte before it, hashed a chunk at a time without parsing the lines
    between. A record that fails validation is refused by ``records`` as it is applied,
    inside the import's one transaction, so it too leaves nothing behind."""
    digest = hashlib.sha256()
    with open_bytes(path) as handle:
        first = handle.readline()
        if not first:
            raise ValidationError("file", str(path), "is empty: not an sgam export")
        header = _header(_parsed(first, 1))
        held = first  # the last line read so far: the closing record when the file ends
        lines = 0  # lines hashed
        while chunk := handle.read(CHUNK):
            data = held + chunk
            cut = data.rfind(b"\n", 0, len(data) - 1) + 1
            if cut:
                digest.update(data[:cut])
                lines += data.count(b"\n", 0, cut)
            held = data[cut:]
    if not held.endswith(b"\n") or lines == 0:
        raise ValidationError("file", str(path), "has no closing record: it is truncated")
    try:
        closing = json.loads(held)
    except ValueError:
        raise ValidationError("file", str(path), "has no closing record: it is truncated") from None
    if not isinstance(closing, dict) or "end" not in closing:
        raise ValidationError("file", str(path), "has no closing record: it is truncated")
    number = lines + 1
    if closing.get("sha256") != digest.hexdigest() or closing.get("records") != lines:
        raise ValidationError(f"line {number}.sha256", closing.get("sha256"),
                              "does not match the file's content: it was altered or cut")
    return header


def _table_of(line: dict[str, Any], number: int) -> PortableTable:
    name = line.get("table")
    table = TABLES_BY_NAME.get(name) if isinstance(name, str) else None
    if table is None:
        raise ValidationError(f"line {number}.table", name, "names no table of the format")
    if not isinstance(line.get("row"), dict):
        raise ValidationError(f"line {number}.row", line.get("row"), "must be a JSON object")
    return table


def records(path: str | Path, header: Header) -> Iterator[tuple[PortableTable, list[Any], int | None]]:
    """The rows of a file whose digest ``check_file`` accepted, in file order, as stored
    values, each with its rank in its table when other rows name it (else None). Each
    record is checked as it is read; the counts the header gives are checked at the end."""
    counts: dict[str, int] = {}
    number = 0
    with open_text(path, "r") as handle:
        next(handle, None)
        for number, text in enumerate(handle, start=2):
            line = _parsed(text, number)
            if "end" in line:
                break
            table = _table_of(line, number)
            decoder = DECODERS[table.name]
            row = line["row"]
            values = decoder.row(row, number)
            counts[table.name] = counts.get(table.name, 0) + 1
            yield table, values, decoder.rank(row)
    for name in sorted(set(counts) | set(header.counts)):
        if counts.get(name, 0) != header.counts.get(name, 0):
            raise ValidationError(f"line 1.counts.{name}", header.counts.get(name, 0),
                                  f"but the file holds {counts.get(name, 0)} records of {name}")
