"""One extraction of one episode: prompt, model, policy, and the record of it all.

The episode is already stored before a model is asked, so a model that times out or
sends garbage costs nothing but a failed extraction record (with its raw reply); the
caller gets the error. The model is asked outside any transaction; then the decisions,
the writes they make, the held candidates, the record and the job's completion commit
in one transaction, so a worker killed before that point leaves the job to be retried,
never half applied or half recorded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from .._core.errors import NotFoundError, SgamError
from .._core.model import Episode
from .._core.values import check_integer, check_tenant, storable_text
from ..ledger.service import Ledger
from ..store import ExtractionRow, WriteTransaction
from .candidates import parse_whole_reply
from .clients import ModelClient, ModelError, ModelResponse
from .policy import ExtractionPolicy, Judge
from .prompt import build_request, gather_context
from .records import Decision, Extraction

Decide = Callable[[WriteTransaction], list[Decision]]


@dataclass(frozen=True, slots=True)
class Lease:
    """The worker's hold on a job; ``final`` when no retry follows a failure."""

    owner: str
    final: bool


class LeaseLost(SgamError):
    """Another worker took the job over (our lease expired); our record is dropped."""

    kind = "lease_lost"


def _missing(tenant: str, episode_id: str) -> NotFoundError:
    return NotFoundError(f"episode: no episode {episode_id!r} in tenant {tenant!r}", field="episode", value=episode_id)


def extract_episode(
    ledger: Ledger,
    tenant: str,
    episode_id: str,
    client: ModelClient,
    policy: ExtractionPolicy,
    lease: Lease | None = None,
) -> Extraction:
    """Extract, decide and record; raises the model's or the reply's error after recording it."""
    episode = require_episode(ledger, tenant, episode_id)
    with ledger.read(tenant) as reader:
        request = build_request(episode, gather_context(reader, episode))
    response: ModelResponse | None = None
    try:
        response = client.complete(request)
        reply = parse_whole_reply(response.text)
    except SgamError as exc:
        record(ledger, tenant, episode_id, response, lambda txn: [], exc, lease)
        raise
    return record(ledger, tenant, episode_id, response,
                  lambda txn: Judge(ledger, txn, episode, policy).decide_all(reply.updates, reply.aliases), None, lease)


def require_episode(ledger: Ledger, tenant: str, episode_id: str) -> Episode:
    episode = ledger.episode(tenant, episode_id)
    if episode is None:
        raise _missing(tenant, episode_id)
    return episode


def record(
    ledger: Ledger,
    tenant: str,
    episode_id: str,
    response: ModelResponse | None,
    decide: Decide,
    error: SgamError | None,
    lease: Lease | None,
) -> Extraction:
    """One transaction: the decisions (and the writes they make), then the record of them."""

    def write(txn: WriteTransaction) -> ExtractionRow:
        found = txn.episode(episode_id)
        if found is None or not found.readable:  # erased or expired while the model was thinking
            raise _missing(tenant, episode_id)
        decisions = decide(txn)
        row = ExtractionRow(
            tenant=tenant,
            episode_id=episode_id,
            attempt=txn.next_extraction_attempt(episode_id),
            recorded_at=ledger.now(),
            status="failed" if error is not None else "ok",
            error=None if error is None else storable_text(f"{error.kind}: {error.message}"),
            model=None if response is None else storable_text(response.model),
            raw_reply=None if response is None else storable_text(response.text),
            prompt_tokens=None if response is None else response.prompt_tokens,
            completion_tokens=None if response is None else response.completion_tokens,
            latency_ms=None if response is None else response.latency_ms,
            decisions=json.dumps([d.to_dict() for d in decisions], ensure_ascii=False),
        )
        row.seq = txn.insert_extraction(row)
        if lease is not None:
            status = "done" if error is None else ("failed" if lease.final else "queued")
            if not txn.finish_job(episode_id, lease.owner, status, row.error):
                raise LeaseLost(
                    f"job of episode {episode_id!r} is no longer leased by {lease.owner!r}",
                    field="lease",
                    value=lease.owner,
                )
        elif error is not None and error.kind == ModelError.kind:
            # The hot path met a model that could not answer (timeout, HTTP error): the
            # caller gets the error now, and the worker retries the episode later.
            txn.enqueue_job(episode_id, row.recorded_at)
        return row

    extraction = Extraction.from_row(ledger.run_write(tenant, write))
    ledger.index_facts(tenant)
    return extraction


def get_extraction(ledger: Ledger, tenant: str, extraction_id: int) -> Extraction:
    """One extraction record by id (NotFoundError if the tenant has none such)."""
    check_tenant(tenant)
    check_integer(extraction_id, "id", 1, "must be the integer id of an extraction (1 to 2**63-1)")
    with ledger.read(tenant) as reader:
        row = reader.extraction(extraction_id)
    if row is None:
        raise NotFoundError(
            f"id: no extraction {extraction_id} in tenant {tenant!r}", field="id", value=extraction_id
        )
    return Extraction.from_row(row)
