"""SQLite schema as a baseline (version 10 in one go) and the migrations after it;
``setup`` applies the missing ones.

Times are INTEGER microseconds since the epoch (UTC); NULL ends mean "open". The
database guards the ledger's invariants itself: CHECKs forbid empty or inverted
intervals, a partial unique index allows one current version per key start (a version
ends, at the latest, where the next one starts: see the baseline), a trigger refuses a
current version stored to run past the next one's start, and retired versions are
immutable.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ..._migrations import Migrations
from . import baseline, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20, v21

MIGRATIONS = Migrations(
    baseline.VERSION,
    tuple(version.SCRIPT for version in (baseline, v11, v12, v13, v14, v15, v16, v17, v18, v19, v20, v21)),
    baseline.SQUASHED,
)
"""The baseline, then version N in module ``vNN``; a new version is a new module, listed last."""

PROGRAMS: dict[int, Callable[[sqlite3.Connection], None]] = {13: v13.run}
"""Versions whose data change needs Python (Unicode case folding), run after their script."""
