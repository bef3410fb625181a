"""A backend's migrations: an ordered list of scripts, version N the N-th.

Version 1 is the baseline: the whole schema an empty database gets, in one script.
Every later version is a script that changes a database of the version before it. A
database records each version it applied (with the script's checksum:
``_migration_checksums.py``); opening it runs the versions it lacks, in order, once.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core.errors import SchemaVersionError


@dataclass(frozen=True)
class Migrations:
    scripts: tuple[str, ...]
    """``scripts[0]`` is version 1 (the baseline); ``scripts[i]`` is version ``i + 1``."""

    @property
    def latest(self) -> int:
        """The version a database has once every script has run."""
        return len(self.scripts)

    def script(self, version: int) -> str:
        """The script that brings a database to ``version``."""
        if not 1 <= version <= self.latest:
            raise KeyError(version)
        return self.scripts[version - 1]

    def check(self, current: int, where: str) -> None:
        """Refuse a database newer than this sgam (0 is a database without sgam's schema:
        the baseline creates it)."""
        if current > self.latest:
            raise SchemaVersionError(
                f"database {where} has schema version {current}; this sgam knows up to {self.latest}. "
                "Upgrade sgam before using this database."
            )

    def pending(self, current: int) -> list[tuple[int, str]]:
        """``(version, script)`` for each script a database at ``current`` (checked) still
        needs, in order: the baseline and everything after it for a new database."""
        return [(version, self.script(version)) for version in range(current + 1, self.latest + 1)]
