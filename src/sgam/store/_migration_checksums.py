"""Checksums of applied migrations: an edited past migration is refused by name.

A migration that already ran on a database is history: editing its script changes what
a new database gets but not what the old one has, so the two silently diverge. Each
backend records the SHA-256 of every version's script (the text as written, before any
substitution) in ``sgam_migrations.checksum`` when it applies it, and compares them
when a database is opened. Databases written before checksums were kept have none: they
get this sgam's checksums recorded, since nothing earlier can be compared. The versions
folded into the baseline have no script left: their recorded checksums are compared with
the ones kept beside the baseline (``Migrations.squashed``). The Python step some
versions run after their script (``PROGRAMS``) is not covered.
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


def accepted(migrations: Migrations, version: int) -> tuple[str, ...]:
    """The checksums a database may have recorded for ``version``: the old chain's for a
    version the baseline folded in (and, for the baseline's own version, the baseline
    script's too: what a database it created records), else the version's script's."""
    if version < migrations.baseline:
        return (migrations.squashed[version],)
    script = checksum(migrations.script(version))
    return (migrations.squashed[version], script) if version == migrations.baseline else (script,)


def unrecorded(
    recorded: Iterable[tuple[int, str | None]], migrations: Migrations, where: str,
) -> list[tuple[int, str]]:
    """Check each recorded ``(version, checksum)`` against ``migrations``; raise
    ``SchemaVersionError`` naming the first version whose script changed, else return
    ``(version, checksum)`` for the applied versions that have none recorded yet (written
    before checksums were kept, so by the old chain where the baseline folded it in).
    Versions this sgam does not know are the version check's."""
    missing: list[tuple[int, str]] = []
    for version, stored in sorted(recorded):
        if not 1 <= version <= migrations.latest:
            continue
        expected = accepted(migrations, version)
        if stored is None:
            missing.append((version, expected[0]))
        elif stored not in expected:
            raise SchemaVersionError(
                f"database {where}: migration {version} was applied with checksum {stored[:16]}, but this "
                f"sgam's migration {version} has checksum {expected[-1][:16]}: a migration already applied was "
                "edited. Restore it as it was and put the change in a new migration."
            )
    return missing
