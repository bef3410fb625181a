"""Subject names, written once: the first spelling of each subject id (its display name)
and the stored ids that the normalisation migration could not rename because two of
them fold into one id (reported, never merged)."""

from __future__ import annotations

from collections.abc import Sequence

from .ledger import MAX_INDEXED_VALUE, Scoped
from .session import chunks, in_list

PAIRS = 100
"""(attribute, value) pairs asked in one statement."""


class SubjectReads(Scoped):
    """Display names and reported collisions, for the reader and the write unit of work."""

    def display_names(self, subjects: Sequence[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for chunk in chunks(list(dict.fromkeys(subjects))):
            rows = self._db.rows(
                f"SELECT subject, display FROM subject_names WHERE tenant = ? AND {in_list('subject', len(chunk))}",
                (self.tenant, *chunk),
            )
            found.update((str(row[0]), str(row[1])) for row in rows)
        return found

    def subjects_among(self, names: Sequence[str]) -> set[str]:
        """Those of ``names`` (normalised ids) that are the subject of a key of the tenant:
        one probe of the key table's (tenant, subject, attribute) index each."""
        found: set[str] = set()
        for chunk in chunks(list(dict.fromkeys(names))):
            rows = self._db.rows(
                f"SELECT DISTINCT subject FROM ledger_keys WHERE tenant = ? AND {in_list('subject', len(chunk))}",
                (self.tenant, *chunk))
            found.update(str(row[0]) for row in rows)
        return found

    def values_named(self, pairs: Sequence[tuple[str, str]]) -> set[str]:
        """The values (canonical JSON) of those (ledger attribute, value) ``pairs`` that some
        version of the tenant holds: which subjects a relation names, one probe of
        ``assertions_by_value`` per pair."""
        found: set[str] = set()
        for chunk in chunks(list(dict.fromkeys(pairs)), PAIRS):
            held = " OR ".join([f"(attribute{self._db.bytewise} = ? AND value = ?)"] * len(chunk))
            rows = self._db.rows(
                f"SELECT DISTINCT value FROM assertions WHERE tenant = ? AND length(value) <= {MAX_INDEXED_VALUE} "
                f"AND ({held})", (self.tenant, *(part for pair in chunk for part in pair)))
            found.update(str(row[0]) for row in rows)
        return found

    def subject_collisions(self, subject: str | None = None) -> list[tuple[str, str]]:
        """(normalised id, stored id) of the rows the migration left as they were."""
        where, params = ("", (self.tenant,)) if subject is None else (" AND subject = ?", (self.tenant, subject))
        rows = self._db.rows(f"SELECT subject, stored FROM subject_collisions WHERE tenant = ?{where} "
                             "ORDER BY subject, stored", params)
        return [(str(row[0]), str(row[1])) for row in rows]


class SubjectWrites(SubjectReads):
    """Recording the first spelling of a subject, and erasing its names."""

    def note_spellings(self, spellings: Sequence[tuple[str, str]]) -> None:
        """(subject id, spelling as given): the first one recorded for an id stays."""
        self._db.run_many(
            "INSERT INTO subject_names (tenant, subject, display) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [(self.tenant, subject, spelling) for subject, spelling in dict(reversed(spellings)).items()],
        )

    def delete_names_of_subject(self, subject: str) -> int:
        """The display name and the collision report of ``subject``: both spell it."""
        removed = self._db.count("DELETE FROM subject_names WHERE tenant = ? AND subject = ?", (self.tenant, subject))
        return removed + self._db.count("DELETE FROM subject_collisions WHERE tenant = ? AND subject = ?",
                                        (self.tenant, subject))
