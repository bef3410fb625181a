"""``AsyncMemory``: the public API for event loops (FastAPI, MCP, LangGraph's async store).

Each call runs the synchronous ``Memory`` method on a worker thread, so a slow query, a
busy SQLite file or an embedding never blocks the loop. Why threads rather than a second,
native-async implementation: the ledger's rules, the write service and both backends stay
one code path (no sync/async drift), the SQLite driver has no async API at all, and on
PostgreSQL psycopg releases the GIL while it waits on the server, so calls on different
threads proceed in parallel through the backend's connection pool. The worker count
bounds how many calls are in flight (match it to the pool); on SQLite the backend
serialises on its one connection anyway.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from .._core.time import Clock, utc_now
from ..search.embedders import Embedder
from .facade import Memory

P = ParamSpec("P")
R = TypeVar("R")
DEFAULT_WORKERS = 8

class AroundCall(Protocol):
    """Runs ``call`` on the worker thread with the memory it is given (or a view of it for
    one request: ``Memory.bound``), or raises instead."""

    def __call__(self, memory: Memory, call: Callable[[Memory], R], /) -> R: ...


def _twin(method: Callable[Concatenate[Memory, P], R]) -> Callable[Concatenate[AsyncMemory, P], Awaitable[R]]:
    """The awaitable twin of a ``Memory`` method: same arguments, same result, same errors."""

    @functools.wraps(method)
    async def call(self: AsyncMemory, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await self._run(lambda memory: method(memory, *args, **kwargs))

    return call


class AsyncMemory:
    """The awaitable twin of ``Memory``: every public method, same names and arguments.

    ``AsyncMemory(memory)`` wraps an open ``Memory`` and leaves it open on ``aclose``;
    ``AsyncMemory.open(url, ...)`` and ``AsyncMemory.from_env(...)`` open one and close it.
    ``workers`` bounds the calls in flight at once.
    """

    def __init__(self, memory: Memory, *, workers: int = DEFAULT_WORKERS, owns_memory: bool = False) -> None:
        self.memory = memory
        self._owns_memory = owns_memory
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sgam")
        self._base = self
        self._around: AroundCall | None = None

    def around(self, around: AroundCall) -> AsyncMemory:
        """This memory for one request: the same store and workers, each call run through
        ``around`` on its worker thread (the HTTP server has the request's API key checked
        by the request's first store call and names the attempt its writes act for)."""
        view = AsyncMemory.__new__(AsyncMemory)
        view.__dict__.update(self.__dict__)
        view._around = around
        return view

    @classmethod
    def open(
        cls, url: str | None = None, *, clock: Clock = utc_now, embedder: Embedder | None = None,
        workers: int = DEFAULT_WORKERS,
    ) -> AsyncMemory:
        return cls(Memory(url, clock=clock, embedder=embedder), workers=workers, owns_memory=True)

    @classmethod
    def from_env(
        cls, url: str | None = None, *, clock: Clock = utc_now, embedder: Embedder | None = None,
        workers: int = DEFAULT_WORKERS,
    ) -> AsyncMemory:
        return cls(Memory.from_env(url, clock=clock, embedder=embedder), workers=workers, owns_memory=True)

    async def call(self, function: Callable[Concatenate[Memory, P], R], *args: P.args, **kwargs: P.kwargs) -> R:
        """Run ``function(memory, *args, **kwargs)`` on a worker thread: a library function
        that takes a ``Memory`` (``sgam.access.authenticate``, say) without blocking the loop."""
        return await self._run(lambda memory: function(memory, *args, **kwargs))

    async def _run(self, call: Callable[[Memory], R]) -> R:
        """``call`` on a worker thread, in a copy of the caller's context variables (an
        application's own, such as tracing); sgam's call context travels as a value."""
        context = contextvars.copy_context()
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, context.run, self._base._checked, call, self._around)

    def _checked(self, call: Callable[[Memory], R], around: AroundCall | None) -> R:
        return call(self.memory) if around is None else around(self.memory, call)

    async def aclose(self) -> None:
        """Wait for calls in flight, then close the store if this object opened it."""
        await asyncio.get_running_loop().run_in_executor(None, self._shutdown)

    def _shutdown(self) -> None:
        self._executor.shutdown(wait=True)
        if self._owns_memory:
            self.memory.close()

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    declare = _twin(Memory.declare)
    register_memory_type = _twin(Memory.register_memory_type)
    schema = _twin(Memory.schema)
    add_episode = _twin(Memory.add_episode)
    add_episodes = _twin(Memory.add_episodes)
    episode = _twin(Memory.episode)
    episodes = _twin(Memory.episodes)
    derived_episodes = _twin(Memory.derived_episodes)
    write = _twin(Memory.write)
    write_many = _twin(Memory.write_many)
    retract = _twin(Memory.retract)
    correct = _twin(Memory.correct)
    forget_subject = _twin(Memory.forget_subject)
    forget_episode = _twin(Memory.forget_episode)
    purge_residue = _twin(Memory.purge_residue)
    export_tenant = _twin(Memory.export_tenant)
    export_subject = _twin(Memory.export_subject)
    import_tenant = _twin(Memory.import_tenant)
    move_tenant = _twin(Memory.move_tenant)
    get = _twin(Memory.get)
    lookup = _twin(Memory.lookup)
    history = _twin(Memory.history)
    versions = _twin(Memory.versions)
    query = _twin(Memory.query)
    remember = _twin(Memory.remember)
    extract = _twin(Memory.extract)
    extraction = _twin(Memory.extraction)
    extractions = _twin(Memory.extractions)
    held = _twin(Memory.held)
    confirm = _twin(Memory.confirm)
    reject = _twin(Memory.reject)
    search = _twin(Memory.search)
    search_many = _twin(Memory.search_many)
    index_episodes = _twin(Memory.index_episodes)
    reembed = _twin(Memory.reembed)
    index_status = _twin(Memory.index_status)
    recall = _twin(Memory.recall)
    once = _twin(Memory.once)
    actions = _twin(Memory.actions)
    preview_forget = _twin(Memory.preview_forget)
    retention = _twin(Memory.retention)
    retention_classes = _twin(Memory.retention_classes)
    retention_report = _twin(Memory.retention_report)
    consent = _twin(Memory.consent)
    consented = _twin(Memory.consented)
    consents = _twin(Memory.consents)
    purge = _twin(Memory.purge)
    residue = _twin(Memory.residue)
    audit = _twin(Memory.audit)
    display_names = _twin(Memory.display_names)
    members = _twin(Memory.members)
    linked = _twin(Memory.linked)
    reachable = _twin(Memory.reachable)
    alias = _twin(Memory.alias)
    unalias = _twin(Memory.unalias)
    names = _twin(Memory.names)
    resolve = _twin(Memory.resolve)
    rename_attribute = _twin(Memory.rename_attribute)
    retype = _twin(Memory.retype)
    quarantined = _twin(Memory.quarantined)
    schema_history = _twin(Memory.schema_history)
    backfills = _twin(Memory.backfills)
    backfill = _twin(Memory.backfill)
    run_backfill = _twin(Memory.run_backfill)
    subject_collisions = _twin(Memory.subject_collisions)
