"""Exact, cheap conversion between protocol times (int microseconds since the Unix epoch,
UTC) and ``timestamptz``.

PostgreSQL's binary ``timestamptz`` *is* an int64 of microseconds, counted from
2000-01-01 UTC. Sending and reading it in binary is a shift by a constant: no
``datetime`` objects, no rounding, no time zone, and comparisons in SQL stay exact.
Parameters meant as times are wrapped in ``Micros``; every ``timestamptz`` column read on
a configured connection comes back as ``int``.
"""

from __future__ import annotations

import struct
from typing import Any

import psycopg
from psycopg.abc import Buffer
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format

_PG_EPOCH_US = 946_684_800 * 1_000_000
_INT64 = struct.Struct(">q")
_INT32 = struct.Struct(">i")
_ARRAY_HEADER = struct.Struct(">iiiii")
_TIMESTAMPTZ = psycopg.postgres.types["timestamptz"]
_TIMESTAMPTZ_OID = _TIMESTAMPTZ.oid
_TIMESTAMPTZ_ARRAY_OID = _TIMESTAMPTZ.array_oid


class Micros(int):
    """Microseconds since the Unix epoch, sent to PostgreSQL as ``timestamptz``."""

    __slots__ = ()


def micros(value: int | None) -> Micros | None:
    return None if value is None else Micros(value)


class MicrosArray(list[int | None]):
    """A column of optional times for ``unnest``, sent as a ``timestamptz[]``."""

    __slots__ = ()


class MicrosDumper(Dumper):
    format = Format.BINARY
    oid = _TIMESTAMPTZ_OID

    def dump(self, obj: Any) -> Buffer | None:
        return _INT64.pack(int(obj) - _PG_EPOCH_US)


class MicrosArrayDumper(Dumper):
    """Binary one-dimensional array: header, then each element's length and int64."""

    format = Format.BINARY
    oid = _TIMESTAMPTZ_ARRAY_OID

    def dump(self, obj: Any) -> Buffer | None:
        parts = [_ARRAY_HEADER.pack(1, int(None in obj), _TIMESTAMPTZ_OID, len(obj), 1)]
        for item in obj:
            parts.append(_INT32.pack(-1) if item is None else _INT32.pack(8) + _INT64.pack(item - _PG_EPOCH_US))
        return b"".join(parts)


class MicrosLoader(Loader):
    format = Format.BINARY

    def load(self, data: Buffer) -> int:
        value: int = _INT64.unpack(data)[0]
        return value + _PG_EPOCH_US


def configure(conn: psycopg.Connection[Any]) -> None:
    """Pool hook: teach a new connection the ``Micros`` <-> ``timestamptz`` mapping."""
    conn.adapters.register_dumper(Micros, MicrosDumper)
    conn.adapters.register_dumper(MicrosArray, MicrosArrayDumper)
    conn.adapters.register_loader("timestamptz", MicrosLoader)
