"""Reading a table's export lines as an export does, page by page, each page held to its
rows read again by key: what the lanes tests of both backends compare."""

from __future__ import annotations

from sgam.portability.exporter import Ranks
from sgam.store._portable import TABLES_BY_NAME
from sgam.store._sql.portable import PortableRows


def checked_lines(rows: PortableRows, name: str, page: int) -> list[bytes]:
    """``name``'s lines, each page checked against its rows read again by key."""
    lines: list[bytes] = []
    for built in rows.record_lines(TABLES_BY_NAME[name], Ranks(rows).dense, page):
        keyed = [bytes(row[-1]) for row in built.keyed()]
        assert b"".join(keyed) == built.text and len(keyed) == built.lines
        lines += keyed
    return lines
