"""``Memory``'s reads of the world's shape: subject names as people wrote them, and the
stored ids the normalisation migration left apart for an operator to resolve."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ._convert import to_assertions
from ._errors import ValidationError
from ._ledger import Ledger
from ._model import Assertion, Reachable
from ._purpose import check_purpose
from ._relations import (
    DEFAULT_FAN_OUT,
    check_depth,
    check_fan_out,
    linked,
    reachable,
    relation_schema,
)
from ._sets import member_reads, member_versions
from ._time import Moment, moment_micros, optional_micros
from ._values import check_limit, check_name, check_subject, check_tenant

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
        ahead = member_reads(subject, attribute, moment, known, scope)
        with self.ledger.read(tenant, "members", ahead=ahead) as reader:
            found = member_versions(reader, subject, attribute, moment, known, scope)
        return to_assertions(tenant, found)

    def linked(
        self, tenant: str, attribute: str, to: str, *, at: Moment | None = None, known_at: Moment | None = None,
        limit: int = 1000,
    ) -> list[str]:
        """The subjects whose relation ``attribute`` (declared with type subject) names
        ``to`` at valid time ``at`` as known at ``known_at``: "who has supplier = Cogs".
        One index range; at most ``limit`` subjects, in id order."""
        check_tenant(tenant)
        attribute, target = check_name(attribute, "attribute"), check_subject(to, "to")
        size = check_limit(limit)
        moment = moment_micros(self.ledger.clock, at, "at")
        known = optional_micros(known_at, "known_at")
        ahead = [lambda reader: reader.declared(attribute), lambda reader: reader.consents(target)]
        with self.ledger.read(tenant, "linked", ahead=ahead) as reader:
            schema = relation_schema(reader, attribute, "attribute")
            return linked(reader, schema, target, moment, known, size)

    def reachable(
        self, tenant: str, start: str, attributes: Sequence[str], *, depth: int = 1, at: Moment | None = None,
        known_at: Moment | None = None, fan_out: int = DEFAULT_FAN_OUT,
    ) -> Reachable:
        """Every subject reached from ``start`` by following the relations ``attributes``
        outward, one to ``depth`` (1 to 10) steps, every step at (``at``, ``known_at``);
        ``start`` is listed only if a path leads back to it. At most ``fan_out`` subjects:
        the answer's ``cut`` says the limit stopped the walk."""
        check_tenant(tenant)
        origin = check_subject(start, "start")
        if isinstance(attributes, str) or not isinstance(attributes, Sequence) or not attributes:
            raise ValidationError("attributes", attributes, "must be a non-empty list of relation attributes")
        names = [check_name(a, f"attributes[{i}]") for i, a in enumerate(attributes)]
        steps, limit = check_depth(depth), check_fan_out(fan_out)
        moment = moment_micros(self.ledger.clock, at, "at")
        known = optional_micros(known_at, "known_at")
        with self.ledger.read(tenant, "reachable") as reader:
            schemas = [relation_schema(reader, a, f"attributes[{i}]") for i, a in enumerate(names)]
            subjects, cut = reachable(reader, origin, schemas, steps, moment, known, limit)
        return Reachable(tenant, origin, subjects, cut)

    def subject_collisions(self, tenant: str) -> list[tuple[str, str]]:
        """(normalised id, stored id) of the rows the normalisation migration did not
        rename, because several stored ids fold into one id (see docs/lifecycle.md)."""
        with self.ledger.read(check_tenant(tenant), "subject_collisions") as reader:
            return reader.subject_collisions()
