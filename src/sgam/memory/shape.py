"""``Memory``'s calls on the world's shape: subject names as people wrote them, aliases
(one subject under several names), sets and relations, and the stored ids left
apart for an operator to resolve because several fold into one id."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .._core.errors import ValidationError
from .._core.model import Assertion, Reachable, SubjectName
from .._core.purpose import check_purpose
from .._core.time import Moment, from_micros, moment_micros, optional_micros
from .._core.values import check_limit, check_name, check_optional_name, check_subject, check_tenant
from ..ledger import aliases, reads
from ..ledger.relations import (
    DEFAULT_FAN_OUT,
    check_attributes,
    check_depth,
    check_fan_out,
    linked,
    reachable,
    relation_schema,
)
from ..ledger.service import Ledger
from ..store import Consents, Declared, WriteTransaction

MAX_NAMES = 10_000


class ShapeCalls:
    """``Memory``'s names, aliases, sets and relations: a part the facade delegates to,
    working through the ledger service alone."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def display_names(self, tenant: str, subjects: Iterable[str]) -> dict[str, str]:
        """The first spelling each subject id was written with (``Mira Jansen`` for
        ``mira jansen``), for tables and texts a person reads; JSON answers keep the id.
        An id with none recorded is shown as itself."""
        check_tenant(tenant)
        if isinstance(subjects, (str, bytes, Mapping)) or not isinstance(subjects, Iterable):
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
        return reads.members(self.ledger, tenant, subject, attribute, moment, known, scope)

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
        with self.ledger.read(tenant, "linked", ahead=[Declared(attribute), Consents(target)]) as reader:
            schema = relation_schema(reader, attribute, "attribute", known)
            return linked(reader, schema, target, moment, known, size)

    def reachable(
        self, tenant: str, start: str, attributes: Sequence[str], *, depth: int = 1, at: Moment | None = None,
        known_at: Moment | None = None, fan_out: int = DEFAULT_FAN_OUT,
    ) -> Reachable:
        """Every subject reached from ``start`` by following the relations ``attributes``
        outward, one to ``depth`` (1 to 10) steps, every step at (``at``, ``known_at``);
        ``start`` is listed only if a path leads back to it. ``attributes`` repeated count
        once; at most 32 distinct. At most ``fan_out`` subjects and 2,000 reads: the
        answer's ``cut`` says a limit stopped the walk."""
        check_tenant(tenant)
        origin = check_subject(start, "start")
        names = check_attributes(attributes)
        steps, limit = check_depth(depth), check_fan_out(fan_out)
        moment = moment_micros(self.ledger.clock, at, "at")
        known = optional_micros(known_at, "known_at")
        with self.ledger.read(tenant, "reachable") as reader:
            schemas = [relation_schema(reader, a, f"attributes[{i}]", known) for i, a in enumerate(names)]
            subjects, cut = reachable(reader, origin, schemas, steps, moment, known, limit)
        return Reachable(tenant, origin, subjects, cut)

    def alias(self, tenant: str, name: str, subject: str, *, decided_by: str | None = None) -> SubjectName:
        """From now on ``name`` is another name of ``subject``: every step and read naming it
        (as a subject, or as the value of a relation) means ``subject``. If ``name`` has
        operations of its own the two subjects merge (a ``ConflictError``, changing
        nothing, if a key would get two values at one ``valid_from``). Reads with an
        earlier ``known_at`` see the subjects as they stood. ``decided_by``: whose decision
        it was, shown on the subject's page of names."""
        check_tenant(tenant)
        alias_name, target = check_subject(name, "name"), check_subject(subject, "subject")
        decider = check_optional_name(decided_by, "decided_by")
        spelling = " ".join(name.split())

        def work(txn: WriteTransaction) -> SubjectName:
            row = aliases.alias(txn, alias_name, target, self.ledger.now(), decider)
            txn.note_spellings([(alias_name, spelling)])
            return _subject_name(tenant, row.name, row.subject, row.recorded_at, row.ended_at, row.decided_by)

        return self.ledger.run_write(tenant, work, "alias")

    def unalias(self, tenant: str, name: str) -> SubjectName:
        """From now on ``name`` is its own subject again: the operations recorded naming it,
        before or while it was an alias, are its own again (``NotFoundError`` if it is
        not an alias). Answers the alias step it ended."""
        check_tenant(tenant)
        alias_name = check_subject(name, "name")

        def work(txn: WriteTransaction) -> SubjectName:
            row = aliases.unalias(txn, alias_name, self.ledger.now())
            return _subject_name(tenant, row.name, row.subject, row.recorded_at, row.ended_at, row.decided_by)

        return self.ledger.run_write(tenant, work, "unalias")

    def names(self, tenant: str, subject: str) -> list[SubjectName]:
        """The subject's page of names: every alias step that joined a name to it (through
        chains too), in force or ended, in the order taken."""
        check_tenant(tenant)
        target = check_subject(subject, "subject")
        with self.ledger.read(tenant, "names") as reader:
            records = aliases.page_of_names(reader.alias_steps(), reader.resolve_subject(target))
        return [_subject_name(tenant, r.name, r.subject, r.since, r.until, r.decided_by) for r in records]

    def resolve(self, tenant: str, name: str, *, known_at: Moment | None = None) -> str:
        """The subject id ``name`` means as the ledger stood at ``known_at`` (default now)."""
        check_tenant(tenant)
        target = check_subject(name, "name")
        known = optional_micros(known_at, "known_at")
        with self.ledger.read(tenant, "resolve") as reader:
            return reader.resolve_subject(target, known)

    def subject_collisions(self, tenant: str) -> list[tuple[str, str]]:
        """(normalised id, stored id) of the rows left apart because several stored ids
        fold into one id (see docs/lifecycle.md)."""
        with self.ledger.read(check_tenant(tenant), "subject_collisions") as reader:
            return reader.subject_collisions()


def _subject_name(
    tenant: str, name: str, subject: str, since: int, until: int | None, decided_by: str | None,
) -> SubjectName:
    return SubjectName(tenant, name, subject, from_micros(since), None if until is None else from_micros(until),
                       decided_by)
