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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from .._errors import SgamError
from .._ledger import Ledger
from ..store import JobRow
from .clients import ModelClient, OpenAIClient
from .extractor import Lease, extract_episode
from .policy import ExtractionPolicy


class HasLedger(Protocol):
    """A ``Memory`` (or anything else) that exposes the ledger it runs on."""

    @property
    def ledger(self) -> Ledger: ...


@dataclass(slots=True)
class WorkerStats:
    done: int = 0
    failed: int = 0
    retried: int = 0

    @property
    def handled(self) -> int:
        return self.done + self.failed + self.retried


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
    ) -> None:
        self.ledger = memory if isinstance(memory, Ledger) else memory.ledger
        self.client = client
        self.policy = policy if policy is not None else ExtractionPolicy.from_env()
        self.tenant = tenant
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.lease_seconds = lease_seconds
        self.batch = batch
        self.max_attempts = max_attempts

    def backlog(self) -> int:
        return self.ledger.backend.count_jobs(self._now(), self.tenant)

    def run_once(self, on_job: Callable[[JobRow, str], None] | None = None) -> WorkerStats:
        """Lease one batch and extract it; returns what happened (empty when idle)."""
        now = self._now()
        jobs = self.ledger.backend.claim_jobs(
            self.owner, now, now + int(self.lease_seconds * 1_000_000), self.batch, self.tenant
        )
        stats = WorkerStats()
        if not jobs:
            return stats
        client = self.client if self.client is not None else OpenAIClient()
        try:
            for job in jobs:
                outcome = self._one(job, client)
                setattr(stats, outcome, getattr(stats, outcome) + 1)
                if on_job is not None:
                    on_job(job, outcome)
        finally:
            if self.client is None and isinstance(client, OpenAIClient):
                client.close()
        return stats

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
                return "retried"
            if exc.kind == "not_found":  # erased meanwhile: its job went with it
                return "failed"
            return "failed" if lease.final else "retried"
        return "done"

    def run(
        self, *, until_idle: bool = True, poll_seconds: float = 1.0, progress: bool = False
    ) -> WorkerStats:
        """Work until the queue is empty (or forever, polling, with ``until_idle=False``)."""
        total = WorkerStats()
        bar = _Progress(self.backlog()) if progress else None
        try:
            while True:
                stats = self.run_once(None if bar is None else bar.advance)
                total.done += stats.done
                total.failed += stats.failed
                total.retried += stats.retried
                if stats.handled == 0:
                    if until_idle:
                        return total
                    time.sleep(poll_seconds)
        finally:
            if bar is not None:
                bar.close()

    def _now(self) -> int:
        return self.ledger.now()


class _Progress:
    """A Rich progress bar over the backlog (the total grows if more is queued)."""

    def __init__(self, total: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(
            TextColumn("extracting"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()
        )
        self._task = self._progress.add_task("extract", total=total)
        self._progress.start()

    def advance(self, job: JobRow, outcome: str) -> None:
        self._progress.advance(self._task)
        self._progress.update(self._task, description=f"{job.tenant}/{job.episode_id}: {outcome}")

    def close(self) -> None:
        self._progress.stop()
