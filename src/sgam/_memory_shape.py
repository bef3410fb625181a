"""``Memory``'s reads of the world's shape: subject names as people wrote them, and the
stored ids the normalisation migration left apart for an operator to resolve."""

from __future__ import annotations

from collections.abc import Iterable

from ._errors import ValidationError
from ._ledger import Ledger
from ._values import check_subject, check_tenant

MAX_NAMES = 10_000


class ShapeCalls:
    """Mixed into ``Memory``; works through its ledger service."""

    ledger: Ledger

    def display_names(self, tenant: str, subjects: Iterable[str]) -> dict[str, str]:
        """The first spelling each subject id was written with (``Mira Jansen`` for
        ``mira jansen``), for tables and texts a person reads; JSON answers keep the id.
        An id with none recorded is shown as itself."""
        check_tenant(tenant)
        if isinstance(subjects, str):
            raise ValidationError("subjects", subjects, "must be a list of subject ids")
        ids = list(dict.fromkeys(check_subject(s, "subjects") for s in subjects))
        if len(ids) > MAX_NAMES:
            raise ValidationError("subjects", f"<{len(ids)} ids>", f"at most {MAX_NAMES}")
        with self.ledger.read(tenant, "display_names") as reader:
            found = reader.display_names(ids) if ids else {}
        return {subject: found.get(subject, subject) for subject in ids}

    def subject_collisions(self, tenant: str) -> list[tuple[str, str]]:
        """(normalised id, stored id) of the rows the normalisation migration did not
        rename, because several stored ids fold into one id (see docs/lifecycle.md)."""
        with self.ledger.read(check_tenant(tenant), "subject_collisions") as reader:
            return reader.subject_collisions()
