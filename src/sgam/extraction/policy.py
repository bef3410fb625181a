"""Write policy: which candidate updates reach the ledger, which wait, which are refused.

The rules of replay format 1 (Extraction) first: ``no_change`` is dropped, evidence must
occur verbatim in the episode, tenant and source come from the caller, a missing
``valid_from`` is the episode's time, and writes go through the write service so every
ledger rule and error applies. Names are resolved, never guessed (``names``): a subject
a name could be more than one of waits for a person, and so does every alias the model
proposes. Then the policies that hold updates back, each a setting: sensitive attributes
wait for confirmation; low-confidence or inferred candidates are buffered as weak signals
until the same value recurs in other episodes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .._core.errors import SgamError, ValidationError, bounded_repr
from .._core.model import Episode
from .._core.purpose import allowed, refuse
from .._core.rules import OpKind
from .._core.schema import AttributeSchema, Cardinality, check_value_type
from .._core.time import from_micros, to_micros
from .._core.values import canonical_json, check_subject
from ..ledger.service import Ledger
from ..ledger.write import PendingOp, validate_op
from ..store import HeldRow, WriteTransaction
from .candidates import AliasProposal, Candidate, Change
from .names import KnownSubjects, known_subjects, resolve
from .records import Decision, Outcome

ALIAS = "alias"
"""The ``change`` of a held alias proposal (its subject is the known subject, its value
the other name, its attribute empty)."""


class ExtractionPolicy(BaseModel):
    """Settings of the policies that hold candidates back.

    ``ExtractionPolicy()`` is the library default; ``from_env`` reads
    ``SGAM_EXTRACTION_<FIELD>`` (at call time); ``ExtractionPolicy.off()`` holds nothing
    back except sensitive attributes, as a replay scenario does unless it turns more on.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_confidence: float = Field(
        default=0.5, ge=0, le=1, description="Below this, a candidate is a weak signal."
    )
    hold_inferred: bool = Field(default=True, description="Buffer candidates the model marks stated=false.")
    promote_after: int = Field(
        default=2, ge=1, description="Distinct episodes with the same weak signal that promote it."
    )
    confirm_sensitive: bool = Field(
        default=True, description="Hold candidates for sensitive attributes for confirmation."
    )
    confirm_ambiguous: bool = Field(
        default=True, description="Hold candidates whose subject could be more than one subject for confirmation."
    )

    @classmethod
    def off(cls) -> ExtractionPolicy:
        return cls(min_confidence=0.0, hold_inferred=False, confirm_ambiguous=False)

    @classmethod
    def from_env(cls) -> ExtractionPolicy:
        data: dict[str, Any] = {}
        for name in cls.model_fields:
            raw = os.environ.get(f"SGAM_EXTRACTION_{name.upper()}")
            if raw is not None:
                data[name] = raw
        return cls.model_validate(data)


@dataclass(slots=True)
class Judge:
    """Applies the policy to the candidates of one episode of one tenant, inside the
    transaction that also records the extraction: decisions, writes, held candidates and
    the record commit together or not at all."""

    ledger: Ledger
    txn: WriteTransaction
    episode: Episode
    policy: ExtractionPolicy
    _known: KnownSubjects | None = None

    @property
    def known(self) -> KnownSubjects:
        """The known subjects the episode names, as the prompt showed them."""
        if self._known is None:
            self._known = known_subjects(self.txn, self.episode.text)
        return self._known

    def decide_all(self, candidates: list[Candidate], aliases: list[AliasProposal] | None = None) -> list[Decision]:
        decisions = [self.decide(index, c, self.txn.attribute_schema(c.attribute))
                     for index, c in enumerate(candidates)]
        return decisions + [self.propose_alias(len(decisions) + i, a) for i, a in enumerate(aliases or [])]

    def decide(self, index: int, c: Candidate, declared: AttributeSchema | None) -> Decision:
        shown = c.model_dump(mode="json")
        if c.change is Change.NO_CHANGE:
            return Decision(index, shown, Outcome.DROPPED, "no_change")
        if not c.evidence.strip() or c.evidence not in self.episode.text:
            return Decision(
                index,
                shown,
                Outcome.REJECTED,
                f"evidence: {bounded_repr(c.evidence)} does not occur verbatim in episode {self.episode.id!r}",
            )
        try:
            valid_from = _checked(c, declared, self.episode)
            if not allowed(self.txn.consents(c.subject), None):
                raise refuse(c.subject, None)
        except SgamError as exc:
            return Decision(index, shown, Outcome.REJECTED, f"{exc.kind}: {exc.message}")
        resolution = resolve(self.txn, self.known, c.subject)
        if resolution.subject is None and self.policy.confirm_ambiguous:
            held = self._hold("pending", c, valid_from)
            return Decision(
                index,
                shown,
                Outcome.PENDING,
                f"subject {c.written_subject!r} is ambiguous: {resolution.why}; confirm held candidate {held} "
                "with the subject it means (or as a new subject), or reject it",
                held_id=held,
                candidates=list(resolution.candidates),
            )
        if declared is not None and declared.sensitive and self.policy.confirm_sensitive:
            held = self._hold("pending", c, valid_from)
            return Decision(
                index,
                shown,
                Outcome.PENDING,
                f"attribute {c.attribute!r} is sensitive: confirm or reject held candidate {held}",
                held_id=held,
            )
        weak = _weakness(c, self.policy)
        if weak is not None:
            return self._buffer(index, shown, c, valid_from, weak)
        return self._apply(index, shown, c, valid_from)

    def _apply(
        self,
        index: int,
        shown: dict[str, Any],
        c: Candidate,
        valid_from: int,
        outcome: Outcome = Outcome.ACCEPTED,
        reason: str | None = None,
        held: int | None = None,
    ) -> Decision:
        pending = candidate_op(c.written_subject, c.attribute, c.change.value, c.value, valid_from,
                               self.episode.id, c.confidence)
        try:
            # A refused candidate must leave no trace in the shared transaction, so the
            # rules are asked first and the write happens only if they accept it.
            self.ledger.writes.check(self.txn, pending)
        except SgamError as exc:
            return Decision(index, shown, Outcome.REJECTED, f"{exc.kind}: {exc.message}", held_id=held)
        result = self.ledger.result(self.txn.tenant, self.ledger.writes.apply_one(self.txn, pending))
        if reason is None and c.written_subject != c.subject:
            reason = f"subject {c.written_subject!r} is {c.subject!r} (the same id once normalised)"
        return Decision(index, shown, outcome, reason, result.effect.value, result.operation_id, held)

    def propose_alias(self, index: int, proposal: AliasProposal) -> Decision:
        """Hold the model's proposal that a name is another name of a known subject: a
        person confirms it; the model never merges two subjects."""
        shown = {"change": ALIAS, **proposal.model_dump(mode="json")}
        if not proposal.evidence.strip() or proposal.evidence not in self.episode.text:
            return Decision(index, shown, Outcome.REJECTED, f"evidence: {bounded_repr(proposal.evidence)} does not "
                                                            f"occur verbatim in episode {self.episode.id!r}")
        try:
            name, subject = check_subject(proposal.name, "name"), check_subject(proposal.subject, "subject")
            if name == subject:
                raise ValidationError("name", proposal.name, f"is already the subject {subject!r}")
            if not self.txn.display_names([subject]):
                raise ValidationError("subject", proposal.subject, "names no subject recorded in this tenant")
            for named in (name, subject):
                if not allowed(self.txn.consents(named), None):
                    raise refuse(named, None)
        except SgamError as exc:
            return Decision(index, shown, Outcome.REJECTED, f"{exc.kind}: {exc.message}")
        held = int(self.txn.hold_candidate(HeldRow(
            tenant=self.txn.tenant, episode_id=self.episode.id, hold="pending", status="open", subject=subject,
            attribute="", change=ALIAS, value=canonical_json(" ".join(proposal.name.split())),
            valid_from=to_micros(self.episode.at), confidence=proposal.confidence, stated=True,
            evidence=proposal.evidence, created_at=self.ledger.now(),
        )))
        return Decision(index, shown, Outcome.PENDING,
                        f"the model proposes {proposal.name!r} as another name of {subject!r}: an alias waits for "
                        f"a person; confirm or reject held candidate {held}", held_id=held)

    def _hold(self, hold: str, c: Candidate, valid_from: int) -> int:
        row = HeldRow(
            tenant=self.txn.tenant,
            episode_id=self.episode.id,
            hold=hold,
            status="open",
            subject=c.subject,
            attribute=c.attribute,
            change=c.change.value,
            value=canonical_json(c.value),
            valid_from=valid_from,
            confidence=c.confidence,
            stated=c.stated,
            evidence=c.evidence,
            created_at=self.ledger.now(),
        )
        return int(self.txn.hold_candidate(row))

    def _buffer(
        self, index: int, shown: dict[str, Any], c: Candidate, valid_from: int, weak: str
    ) -> Decision:
        """Hold a weak signal; once ``promote_after`` distinct episodes carry the same
        subject, attribute and value, write it (sourced from this episode)."""
        held = self._hold("buffered", c, valid_from)
        like = self.txn.held_like("buffered", c.subject, c.attribute, canonical_json(c.value))
        episodes = {row.episode_id for row in like}
        if len(episodes) < self.policy.promote_after:
            return Decision(
                index,
                shown,
                Outcome.BUFFERED,
                f"{weak}; seen in {len(episodes)} of {self.policy.promote_after} episodes needed",
                held_id=held,
            )
        decision = self._apply(
            index,
            shown,
            c,
            valid_from,
            Outcome.PROMOTED,
            f"{weak}; recurred in {len(episodes)} episodes",
            held,
        )
        if decision.outcome is Outcome.PROMOTED:
            self.txn.resolve_held([row.seq for row in like], "promoted", self.ledger.now())
        return decision


def _weakness(c: Candidate, policy: ExtractionPolicy) -> str | None:
    if c.confidence < policy.min_confidence:
        return f"confidence {c.confidence} is below {policy.min_confidence}"
    if not c.stated and policy.hold_inferred:
        return "inferred, not stated"
    return None


def _checked(c: Candidate, declared: AttributeSchema | None, episode: Episode) -> int:
    """Shape and declared-type checks before anything is held or written; the start."""
    kind = OpKind.RETRACT if c.change is Change.RETRACT else OpKind.WRITE
    moment = episode.at if c.valid_from is None else c.valid_from
    pending = validate_op(kind, c.subject, c.attribute, moment, episode.id, c.value, None, c.confidence)
    is_set = declared is not None and declared.cardinality is Cardinality.MANY
    if kind is OpKind.WRITE or (is_set and c.value is not None):
        check_value_type(c.value, declared.value_type if declared else None, "value")
    elif is_set:
        raise ValidationError("value", None, f"a retract of {c.attribute!r}, a set (cardinality many), names "
                                             "the member to retract")
    elif c.value is not None:
        raise ValidationError("value", c.value, "must be null for retract")
    return pending.valid_at


def candidate_op(
    subject: str, attribute: str, change: str, value: Any, valid_from: int, source: str, confidence: float
) -> PendingOp:
    """new/update are a write, retract a retract at ``valid_from`` (of the member ``value``
    names, for a set): the normal write service."""
    moment = from_micros(valid_from)
    if change == Change.RETRACT.value:
        return validate_op(OpKind.RETRACT, subject, attribute, moment, source, value)
    return validate_op(OpKind.WRITE, subject, attribute, moment, source, value, None, confidence)

