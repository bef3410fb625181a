"""A backend's migrations: a baseline script that creates the oldest schema version sgam
still opens, then one script per later version.

The versions before the baseline were written before sgam's first release and are folded
into the baseline script. A new database runs the baseline (recorded as version
``baseline``) and the later versions; a database written by the old chain recorded
versions 1 to ``baseline`` one by one, holds the baseline's schema and goes on from there
alike. A database stopped before the baseline was a development build's and is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from .._core.errors import SchemaVersionError


@dataclass(frozen=True)
class Migrations:
    baseline: int
    """The version the baseline script creates."""
    scripts: tuple[str, ...]
    """``scripts[0]`` is the baseline; ``scripts[i]`` is version ``baseline + i``."""
    squashed: Mapping[int, str]
    """The checksum each version 1 to ``baseline`` of the old chain recorded."""

    @property
    def latest(self) -> int:
        """The version a database has once every script has run."""
        return self.baseline + len(self.scripts) - 1

    def script(self, version: int) -> str:
        """The script that brings a database to ``version`` (the baseline's for ``baseline``)."""
        if not self.baseline <= version <= self.latest:
            raise KeyError(version)
        return self.scripts[version - self.baseline]

    def check(self, current: int, where: str) -> None:
        """Refuse a database this sgam cannot open: newer than ``latest``, or older than
        the baseline (0 is a database without sgam's schema: the baseline creates it)."""
        if current > self.latest:
            raise SchemaVersionError(
                f"database {where} has schema version {current}; this sgam knows up to {self.latest}. "
                "Upgrade sgam before using this database."
            )
        if 0 < current < self.baseline:
            raise SchemaVersionError(
                f"database {where} has schema version {current}, older than version {self.baseline}, the oldest "
                f"this sgam upgrades: a development build from before sgam's first release wrote it. Open it "
                f"once with an sgam that still has migrations 1 to {self.baseline} one by one (it upgrades the "
                f"database to version {self.baseline} or later), or start a new database."
            )

    def pending(self, current: int) -> list[tuple[int, str]]:
        """``(version, script)`` for each script a database at ``current`` (checked) still
        needs, in order: the baseline and everything after it for a new database."""
        first = self.baseline if current == 0 else current + 1
        return [(version, self.script(version)) for version in range(first, self.latest + 1)]

    def upto(self, version: int) -> Migrations:
        """These migrations as they stood when ``version`` was the latest: what an older
        sgam applied (tests build databases of earlier versions with it)."""
        if not self.baseline <= version <= self.latest:
            raise ValueError(f"version {version} is not between {self.baseline} and {self.latest}")
        return replace(self, scripts=self.scripts[:version - self.baseline + 1])
