"""Backfills run by the server: a migration step accepted over HTTP returns once it is
recorded, and its backfill goes on in a worker of the server's event loop that outlives
the request.

One worker per (tenant, step): asking for a backfill that already has a live worker
returns that worker, so two resumes never run one backfill twice in this process (and
runners in other processes take batches in turn: ``ledger.backfill.run_batch``). A
server that restarts resumes a tenant's unfinished backfills on that tenant's first
authenticated request (``resume``): a server cannot list every tenant's backfills (on
PostgreSQL row-level security shows it one tenant at a time), but every tenant it
serves asks it something. A
worker runs one batch per call of ``AsyncMemory`` (the batches of the CLI, each its own
transaction), so requests are served between two batches and a server that stops ends
its workers between two batches; what committed stays done and ``POST
/v1/schema/backfills/{step}/run`` resumes after the last subject done.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from fastapi import Request

from .._core.errors import SgamError
from .._core.model import Backfill
from ..ledger.backfill import BATCH
from ..memory.asynchronous import AsyncMemory

LOG = logging.getLogger("sgam.server")


@dataclass
class BackfillWorkers:
    """The backfills this server is running, by tenant and step."""

    memory: AsyncMemory
    batch: int = BATCH
    resuming: bool = True
    """Whether a tenant's first request resumes its unfinished backfills."""
    _running: dict[tuple[str, int], asyncio.Task[None]] = field(default_factory=dict)
    _stopping: bool = False
    _asked: set[str] = field(default_factory=set)

    def running(self, tenant: str, step: int) -> bool:
        task = self._running.get((tenant, step))
        return task is not None and not task.done()

    def start(self, tenant: str, step: int) -> bool:
        """Run the backfill of ``step`` to its end in a worker, unless one already runs it
        (False then). The worker calls the server's memory, not the request's view of it
        (``AsyncMemory.around``): nothing of the request that asked for it (its key check,
        its idempotent attempt) applies to its batches."""
        if self._stopping or self.running(tenant, step):
            return False
        task = asyncio.get_running_loop().create_task(self._run(tenant, step))
        self._running[(tenant, step)] = task
        task.add_done_callback(lambda _: self._forget(tenant, step, task))
        return True

    async def resume(self, tenant: str) -> None:
        """On the tenant's first request to this server, start a worker for each of its
        unfinished backfills (one store call per tenant and process). A failure to list
        them is logged and asked again on the next request; the request goes on."""
        if not self.resuming or self._stopping or tenant in self._asked:
            return
        self._asked.add(tenant)
        try:
            found = await self.memory.backfills(tenant)
        except SgamError:  # a revoked key, a busy store: the request's own call answers it
            self._asked.discard(tenant)
            return
        except Exception:  # the request it rides on must not fail for it
            self._asked.discard(tenant)
            LOG.exception("could not list the unfinished backfills of tenant %r to resume them", tenant)
            return
        for backfill in found:
            if not backfill.finished and self.start(tenant, backfill.step):
                LOG.info("resuming the backfill of step %s of tenant %r", backfill.step, tenant)

    def _forget(self, tenant: str, step: int, task: asyncio.Task[None]) -> None:
        if self._running.get((tenant, step)) is task:
            del self._running[(tenant, step)]

    async def _run(self, tenant: str, step: int) -> None:
        try:
            while not self._stopping:
                [found] = await self.memory.run_backfill(tenant, batch=self.batch, max_batches=1, step=step)
                if found.finished:
                    return
        except Exception:  # a worker has no caller to raise to: logged, and resumable by the route
            LOG.exception("backfill of step %s of tenant %r stopped; POST /v1/schema/backfills/%s/run resumes it",
                          step, tenant, step)

    async def stop(self) -> None:
        """End every worker after its batch in flight (the server is stopping)."""
        self._stopping = True
        tasks = list(self._running.values())
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)


def workers_of(request: Request) -> BackfillWorkers:
    workers: BackfillWorkers = request.app.state.backfills
    return workers


def status_url(backfill: Backfill) -> str:
    return f"/v1/schema/backfills/{backfill.step}"
