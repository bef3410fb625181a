"""SQLite schema: the baseline (version 1) and the versions after it; ``setup`` applies
the missing ones.

Times are INTEGER microseconds since the epoch (UTC); NULL ends mean "open". The
database guards the ledger's invariants itself: CHECKs forbid empty or inverted
intervals, a partial unique index allows one current version per key start (a version
ends, at the latest, where the next one starts: see the baseline), a trigger refuses a
current version stored to run past the next one's start, and retired versions are
immutable.

Adding the next version: write a module ``vN.py`` (N the latest version plus one) with a
docstring saying what changes and why, and ``SCRIPT``, the SQL that takes a database of
version N - 1 to N (existing rows included: it runs on databases in use); list it last
in ``MIGRATIONS`` below; do the same on PostgreSQL; run ``make schema`` and review the
diff of ``schema.txt``. Never edit an applied version (the baseline included):
databases record each script's checksum and refuse one that changed.
"""

from __future__ import annotations

from ..._migrations import Migrations
from . import baseline

MIGRATIONS = Migrations(tuple(version.SCRIPT for version in (baseline,)))
"""Version 1 (the baseline), then version N in module ``vN``, listed in order."""
