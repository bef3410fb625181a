"""The background worker: drains the extraction queue kept in the store itself.

At least once and idempotent: a job is leased (owner + expiry on its row), and its
extraction record and completion commit together. A worker killed mid-job leaves the
lease to expire and another worker redoes the job; the facts it writes again are
corroborations by the ledger's rules, so nothing is duplicated. No broker needed.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from .._core.errors import SgamError, ValidationError
from .._core.values import check_tenant
from ..ledger.service import Ledger
from ..lifecycle.expiry import purge
from ..store import JobRow
from .clients import ModelClient, OpenAIClient
from .extractor import Lease, extract_episode
from .policy import ExtractionPolicy

MAX_BATCH = 1000
MAX_LEASE_SECONDS = 86_400.0
MAX_ATTEMPTS = 100


class HasLedger(Protocol):
    """A ``Memory`` (or anything else) that exposes the ledger it runs on."""

    @property
    def ledger(self) -> Ledger: ...


@dataclass(slots=True)
class WorkerStats:
    """Jobs counted once each, by how their last attempt ended (``queued``: back in the
    queue for a later run; ``erased``: its episode was erased meanwhile), and the
    extraction attempts it took."""

    done: int = 0
    failed: int = 0
    queued: int = 0
    erased: int = 0
    attempts: int = 0
    purged: int = 0
    """Operations, episodes and texts the scheduled purges removed past their deadline."""

    @property
    def jobs(self) -> int:
        return self.done + self.failed + self.queued + self.erased

    @classmethod
    def of(cls, outcomes: Iterable[str], attempts: int, purged: int = 0) -> WorkerStats:
        stats = cls(attempts=attempts, purged=purged)
        for outcome in outcomes:
            setattr(stats, outcome, getattr(stats, outcome) + 1)
        return stats


class Worker:
    """Extract queued episodes of every tenant (or of ``tenant``) in batches."""

    def __init__(
        self,
        memory: Ledger | HasLedger,
        client: ModelClient | None = None,
        policy: ExtractionPolicy | None = None,
        *,
        tenant: str | None = None,
        owner: str | None = None,
        lease_seconds: float = 300.0,
        batch: int = 4,
        max_attempts: int = 3,
        purge_every: float | None = 60.0,
    ) -> None:
        self.ledger = memory if isinstance(memory, Ledger) else memory.ledger
        self.purge_every = purge_every
        self._last_purge: float | None = None
        self.client = client
        self.policy = policy if policy is not None else ExtractionPolicy.from_env()
        self.tenant = None if tenant is None else check_tenant(tenant)
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.lease_seconds = _bounded_number(lease_seconds, "lease_seconds", 0.001, MAX_LEASE_SECONDS)
        self.batch = _bounded_int(batch, "batch", MAX_BATCH)
        self.max_attempts = _bounded_int(max_attempts, "max_attempts", MAX_ATTEMPTS)

    def backlog(self) -> int:
        return self.ledger.backend.count_jobs(self._now(), self.tenant)

    def run_once(self, on_job: Callable[[JobRow, str], None] | None = None) -> WorkerStats:
        """Lease one batch and extract it; returns what happened (empty when idle).

        The model client is made before anything is leased: a model that is not
        configured leaves the queue untouched instead of holding leases."""
        if self.client is None and self.backlog() == 0:
            return WorkerStats()
        client = self.client if self.client is not None else OpenAIClient()
        try:
            now = self._now()
            jobs = self.ledger.backend.claim_jobs(
                self.owner, now, now + int(self.lease_seconds * 1_000_000), self.batch, self.tenant
            )
            outcomes = []
            for job in jobs:
                outcome = self._one(job, client)
                outcomes.append(outcome)
                if on_job is not None:
                    on_job(job, outcome)
        finally:
            if self.client is None and isinstance(client, OpenAIClient):
                client.close()
        return WorkerStats.of(outcomes, len(jobs))

    def _one(self, job: JobRow, client: ModelClient) -> str:
        if job.attempts > self.max_attempts:
            # An earlier final attempt ended without recording (the process died, or the
            # extraction raised something unexpected): give up instead of trying again.
            error = f"gave up: attempt {job.attempts} of at most {self.max_attempts} ended without a record"
            self.ledger.backend.run_write(
                job.tenant, lambda txn: txn.finish_job(job.episode_id, self.owner, "failed", error)
            )
            return "failed"
        lease = Lease(self.owner, final=job.attempts >= self.max_attempts)
        try:
            extract_episode(self.ledger, job.tenant, job.episode_id, client, self.policy, lease)
        except SgamError as exc:
            if exc.kind == "lease_lost":
                return "queued"
            if exc.kind == "not_found":  # erased meanwhile: its job went with it
                return "erased"
            return "failed" if lease.final else "queued"
        return "done"

    def run(
        self, *, until_idle: bool = True, poll_seconds: float = 1.0, progress: bool = False
    ) -> WorkerStats:
        """Work until the queue is empty (or forever, polling, with ``until_idle=False``).

        A job tried again within the run is counted once, by how its last attempt ended."""
        last: dict[tuple[str, str], str] = {}
        attempts = purged = 0
        bar = _Progress(self.backlog()) if progress else None

        def seen(job: JobRow, outcome: str) -> None:
            last[(job.tenant, job.episode_id)] = outcome
            if bar is not None:
                bar.advance(job, outcome)

        try:
            while True:
                purged += self.purge_if_due()
                stats = self.run_once(seen)
                attempts += stats.attempts
                if stats.attempts == 0:
                    if until_idle:
                        return WorkerStats.of(last.values(), attempts, purged)
                    time.sleep(poll_seconds)
        finally:
            if bar is not None:
                bar.close()

    def purge_if_due(self) -> int:
        """Purge (every tenant, or the worker's) when ``purge_every`` seconds have passed
        since the last one, and on the first call; how much it removed."""
        if self.purge_every is None:
            return 0
        clock = time.monotonic()
        if self._last_purge is not None and clock - self._last_purge < self.purge_every:
            return 0
        self._last_purge = clock
        _, erased, retained = purge(self.ledger.backend, self.ledger.reach, self._now(), self.tenant)
        return erased.operations + erased.episodes + erased.texts + retained.threads_erased

    def _now(self) -> int:
        return self.ledger.now()


class _Progress:
    """A Rich progress bar over the backlog's jobs: a job advances it once, when it is
    done, failed for good or erased (the total grows if more is queued)."""

    def __init__(self, total: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()
        )
        self._task = self._progress.add_task("extracting", total=total)
        self._finished: set[tuple[str, str]] = set()
        self._progress.start()

    def advance(self, job: JobRow, outcome: str) -> None:
        key = (job.tenant, job.episode_id)
        if outcome != "queued" and key not in self._finished:
            self._finished.add(key)
            self._progress.advance(self._task)
        self._progress.update(self._task, description=f"{job.tenant}/{job.episode_id}: {outcome}")

    def close(self) -> None:
        self._progress.stop()


def _bounded_int(value: object, field: str, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise ValidationError(field, value, f"must be an integer from 1 to {maximum}")
    return value


def _bounded_number(value: object, field: str, minimum: float, maximum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not minimum <= value <= maximum:
        raise ValidationError(field, value, f"must be a number of seconds from {minimum} to {maximum:.0f}")
    return float(value)
