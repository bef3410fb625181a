"""Checksums of applied migrations: an edited past migration is refused by name.

A migration that already ran on a database is history: editing its script changes what
a new database gets but not what the old one has, so the two silently diverge. Each
backend records the SHA-256 of every version's script (the text as written, before any
substitution) in ``sgam_migrations.checksum`` when it applies it, and compares them
when a database is opened. Databases written before checksums were kept have none: they
get this sgam's checksums recorded, since nothing earlier can be compared. The Python
step some versions run after their script (``PROGRAMS``) is not covered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import cache

from .._core.errors import SchemaVersionError


@cache
def checksum(script: str) -> str:
    """The hex SHA-256 of a migration's script (cached: every open compares them all)."""
    return hashlib.sha256(script.encode()).hexdigest()


def unrecorded(
    recorded: Iterable[tuple[int, str | None]], scripts: Sequence[str], where: str,
) -> list[tuple[int, str]]:
    """Check each recorded ``(version, checksum)`` against ``scripts`` (version N is
    ``scripts[N - 1]``); raise ``SchemaVersionError`` naming the first version whose
    script changed, else return ``(version, checksum)`` for the applied versions that have
    none recorded yet. Versions this sgam does not know are the newer-schema check's."""
    missing: list[tuple[int, str]] = []
    for version, stored in sorted(recorded):
        if not 1 <= version <= len(scripts):
            continue
        expected = checksum(scripts[version - 1])
        if stored is None:
            missing.append((version, expected))
        elif stored != expected:
            raise SchemaVersionError(
                f"database {where}: migration {version} was applied with checksum {stored[:16]}, but this "
                f"sgam's migration {version} has checksum {expected[:16]}: a migration already applied was "
                "edited. Restore it as it was and put the change in a new migration."
            )
    return missing
