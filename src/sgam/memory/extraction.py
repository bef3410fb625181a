"""``Memory``'s entry points to extraction (the work is in ``sgam.extraction``) and to
actions run at most once (``ledger.actions``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._core.errors import SgamError, ValidationError
from .._core.model import SubjectName, WriteResult
from .._core.purpose import ConsentBook, consent_uses
from .._core.time import Moment
from .._core.values import check_limit, check_name, check_optional_name, check_tenant
from ..ledger.actions import Action, Reconciled, actions, actions_of_thread, once
from ..ledger.records import to_episode
from ..ledger.service import Ledger
from ..ledger.write import validate_episode
from ..store import EpisodeRow, WriteTransaction

if TYPE_CHECKING:
    from ..extraction import Extraction, ExtractionPolicy, HeldCandidate, ModelClient, Remembered

HELD_STATUSES = ("open", "confirmed", "rejected", "promoted")


class ExtractionCalls:
    """``Memory``'s extraction, review and actions run at most once: a part the facade
    delegates to, working through the ledger service alone."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def remember(
        self, tenant: str, id: str, at: Moment, text: str, *, speaker: str | None = None,
        kind: str = "message", session: str | None = None, metadata: dict[str, Any] | None = None,
        extract: bool = True, client: ModelClient | None = None, policy: ExtractionPolicy | None = None,
        retention: str = "default",
    ) -> Remembered:
        """Record an episode, then extract facts from it now (``extract=True``) or queue it
        for ``sgam worker`` in the same transaction as the episode (``extract=False``)."""
        from ..extraction import Remembered

        _check_model_arguments(client, policy)
        row = validate_episode(id, at, text, speaker, kind, session, metadata, check_tenant(tenant), retention)

        def record(txn: WriteTransaction) -> EpisodeRow:
            stored = self.ledger.writes.add_episode(txn, row)
            if not extract:
                txn.enqueue_job(stored.episode_id, self.ledger.writes.now())
            return stored

        episode = to_episode(self.ledger.run_write(tenant, record, "remember"))
        if not extract:
            return Remembered(episode, None, True)
        try:
            extraction = self.extract(tenant, episode.id, client=client, policy=policy)
        except SgamError as exc:
            if exc.kind != "model":
                raise
            raise type(exc)(  # the model could not answer: say where the episode is and what comes next
                f"episode {episode.id!r} is recorded and queued for extraction: run `sgam worker` once the "
                f"model answers. Extraction now failed: {exc.message}", field=exc.field, value=exc.value,
            ) from exc
        return Remembered(episode, extraction, False)

    def extract(
        self, tenant: str, episode: str, *, client: ModelClient | None = None,
        policy: ExtractionPolicy | None = None,
    ) -> Extraction:
        """Run extraction on a recorded episode (default model and policy from the
        environment); the record stays inspectable through ``extractions``."""
        from ..extraction import extract

        _check_model_arguments(client, policy)
        return extract(self.ledger, check_tenant(tenant), check_name(episode, "episode"), client=client, policy=policy)

    def extractions(self, tenant: str, *, episode: str | None = None, limit: int = 100) -> list[Extraction]:
        """Extraction records, newest first: raw replies, decisions and their reasons."""
        from ..extraction import Extraction

        with self.ledger.read(check_tenant(tenant), "extractions") as reader:
            rows = reader.extractions(check_optional_name(episode, "episode"), check_limit(limit))
            revoked = ConsentBook(reader.revoking_consents(consent_uses(None))).revoked_subjects(None)
        return [Extraction.from_row(row).without_subjects(revoked) for row in rows]

    def extraction(self, tenant: str, extraction_id: int) -> Extraction:
        """One extraction record by id (NotFoundError if the tenant has none such)."""
        from ..extraction import get_extraction

        return get_extraction(self.ledger, check_tenant(tenant), extraction_id)

    def held(self, tenant: str, *, status: str | None = "open", limit: int = 100) -> list[HeldCandidate]:
        """Candidates held back (pending confirmation or buffered as weak signals)."""
        from ..extraction import HeldCandidate

        if status is not None and status not in HELD_STATUSES:
            raise ValidationError("status", status, f"must be one of {', '.join(HELD_STATUSES)} or None")
        with self.ledger.read(check_tenant(tenant), "held") as reader:
            book = ConsentBook(reader.revoking_consents(consent_uses(None)))
            return [HeldCandidate.from_row(row) for row in reader.held_candidates(status, check_limit(limit))
                    if book.allows(row.subject, None)]

    def confirm(self, tenant: str, held_id: int, *, subject: str | None = None,
                may_alias: bool = True) -> WriteResult | SubjectName:
        """Confirm a held candidate: it is written now, sourced from its episode, and the
        write's ``WriteResult`` answers. For a candidate held because its subject's name was
        ambiguous, ``subject`` says which subject it is about (default: the name as the
        model wrote it, a subject of its own). A held alias proposal answers the alias step
        it recorded (a ``SubjectName``, as ``alias`` does). ``may_alias=False`` refuses an
        alias proposal with ``ForbiddenError``, leaving it open: a surface passes it for a
        caller that may write facts but not merge subjects."""
        from ..extraction import confirm

        return confirm(self.ledger, check_tenant(tenant), held_id, subject, may_alias=may_alias)

    def reject(self, tenant: str, held_id: int) -> HeldCandidate:
        """Reject a held candidate: it is never written."""
        from ..extraction import reject

        return reject(self.ledger, check_tenant(tenant), held_id)

    # actions --------------------------------------------------------------------------

    def once(
        self, tenant: str, action_key: str, request: Any, call: Callable[[str], Any], *,
        reconcile: Callable[[str], Reconciled | None] | None = None, thread_id: str | None = None,
    ) -> Any:
        """Call ``call(action_key)`` at most once per tenant and key: the intent is
        committed first, the outcome after; a retry returns the recorded result; an
        intent without outcome raises ``ActionInDoubt`` unless ``reconcile`` settles it.
        Called from a LangGraph node, the action is recorded for the run's thread (or
        for ``thread_id``), whose page shows it."""
        return once(self.ledger, tenant, action_key, request, call, reconcile=reconcile, thread_id=thread_id)

    def actions(
        self, tenant: str, *, status: str | None = None, limit: int = 100, thread_id: str | None = None,
    ) -> list[Action]:
        """Recorded actions in the order they began (``status``: in_doubt or done;
        ``thread_id``: those made for that checkpoint thread)."""
        if thread_id is not None:
            if status is not None:
                raise ValidationError("status", status, "cannot be combined with thread_id")
            return actions_of_thread(self.ledger, tenant, thread_id, check_limit(limit))
        return actions(self.ledger, tenant, status, check_limit(limit))


def _check_model_arguments(client: object, policy: object) -> None:
    """A client answers ``complete(request)``; a policy is an ``ExtractionPolicy``."""
    from ..extraction import ExtractionPolicy

    if client is not None and not callable(getattr(client, "complete", None)):
        raise ValidationError("client", client, "must be a model client (with complete(request)) or None")
    if policy is not None and not isinstance(policy, ExtractionPolicy):
        raise ValidationError("policy", policy, "must be an ExtractionPolicy or None")
