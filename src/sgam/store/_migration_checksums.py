"""Checksums of applied migrations: an edited past migration is refused by name.

A migration that already ran on a database is history: editing its script changes what
a new database gets but not what the old one has, so the two silently diverge. Each
backend records the SHA-256 of every version's script (the text as written, before any
substitution) in ``sgam_migrations.checksum`` when it applies it, and compares them
when a database is opened.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache

from .._core.errors import SchemaVersionError
from ._migrations import Migrations


@cache
def checksum(script: str) -> str:
    """The hex SHA-256 of a migration's script (cached: every open compares them all)."""
    return hashlib.sha256(script.encode()).hexdigest()


def verify(recorded: Iterable[tuple[int, str | None]], migrations: Migrations, where: str) -> None:
    """Check each recorded ``(version, checksum)`` against ``migrations``; raise
    ``SchemaVersionError`` naming the first version whose script changed (or was recorded
    without a checksum). Versions this sgam does not know are the version check's."""
    for version, stored in sorted(recorded):
        if not 1 <= version <= migrations.latest:
            continue
        expected = checksum(migrations.script(version))
        if stored != expected:
            raise SchemaVersionError(
                f"database {where}: migration {version} was applied with checksum {(stored or 'none')[:16]}, but "
                f"this sgam's migration {version} has checksum {expected[:16]}: a migration already applied was "
                "edited. Restore it as it was and put the change in a new migration."
            )
