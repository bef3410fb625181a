"""Subject names, written once: the first spelling of each subject id (its display name)
and the stored ids that the normalisation migration could not rename because two of
them fold into one id (reported, never merged)."""

from __future__ import annotations

from collections.abc import Sequence

from .ledger import Scoped
from .session import chunks, in_list


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
