"""SQLite schema as an ordered list of migrations; ``setup`` applies the missing ones.

Times are INTEGER microseconds since the epoch (UTC); NULL ends mean "open". The
database guards the ledger's invariants itself: CHECKs forbid empty or inverted
intervals, a partial unique index allows one current version per key start (a version
ends, at the latest, where the next one starts: see version 9), a trigger refuses a
current version stored to run past the next one's start, and retired versions are
immutable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from . import v01, v02, v03, v04, v05, v06, v07, v08, v09, v10, v11, v12, v13, v14, v15, v16, v17, v18, v19

MIGRATIONS: list[str] = [
    version.SCRIPT for version in (v01, v02, v03, v04, v05, v06, v07, v08, v09, v10, v11, v12, v13, v14, v15, v16,
                                   v17, v18, v19)
]
"""Version N is ``MIGRATIONS[N - 1]``; a new version is a new module, listed last."""

PROGRAMS: dict[int, Callable[[sqlite3.Connection], None]] = {13: v13.run}
"""Versions whose data change needs Python (Unicode case folding), run after their script."""
