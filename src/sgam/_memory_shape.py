"""``Memory``'s reads of the world's shape: subject names as people wrote them, and the
stored ids the normalisation migration left apart for an operator to resolve."""

from __future__ import annotations

from collections.abc import Iterable

from ._convert import to_assertion
from ._errors import ValidationError
from ._ledger import Ledger
from ._model import Assertion
from ._purpose import allowed, check_purpose, members_prefix
from ._time import Moment, moment_micros, optional_micros
from ._values import check_name, check_subject, check_tenant

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

    def members(
        self, tenant: str, subject: str, attribute: str, *, at: Moment | None = None,
        known_at: Moment | None = None, purpose: str | None = None,
    ) -> list[Assertion]:
        """The members of the set ``subject.attribute`` (cardinality many) holding at valid
        time ``at`` (default now) as known at ``known_at``, in the order of their values'
        JSON text. With ``purpose``: that purpose's members, or the general timeline's
        where none of the purpose holds. Nothing while consent is revoked."""
        check_tenant(tenant)
        subject, attribute = check_subject(subject, "subject"), check_name(attribute, "attribute")
        scope = check_purpose(purpose)
        moment = moment_micros(self.ledger.clock, at, "at")
        known = optional_micros(known_at, "known_at")
        with self.ledger.read(tenant, "members") as reader:
            if not allowed(reader.consents(subject), scope):
                return []
            found = [] if scope is None else reader.members(subject, members_prefix(attribute, scope), moment, known)
            if not found:
                found = reader.members(subject, members_prefix(attribute, None), moment, known)
        return [to_assertion(tenant, version) for version in found]

    def subject_collisions(self, tenant: str) -> list[tuple[str, str]]:
        """(normalised id, stored id) of the rows the normalisation migration did not
        rename, because several stored ids fold into one id (see docs/lifecycle.md)."""
        with self.ledger.read(check_tenant(tenant), "subject_collisions") as reader:
            return reader.subject_collisions()
