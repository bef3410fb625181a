"""``SgamSaver``: LangGraph's checkpointer on the ledger's own database, one tenant per saver.

A checkpoint is where an interrupted run goes on from; the ledger and ``SgamStore`` hold
what every thread shares. Keeping both in one database gives one tenant model (on
PostgreSQL the rows sit under the same forced row-level security: a ``thread_id`` of
another tenant finds nothing), one retention story (a thread's class prunes its history
to what a resume needs, or erases it whole) and one erasure (``forget_thread``, and
``forget_subject`` reaching every thread that names the subject in its metadata
``subjects``). docs/checkpoints.md describes the three kinds of memory.
"""

from __future__ import annotations

import asyncio
import builtins
import random
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    get_checkpoint_id,
    get_checkpoint_metadata,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from .._core.errors import NotFoundError, SgamError, StoreError, ValidationError
from .._core.model import ForgetResult
from .._core.retention import DEFAULT_CLASS
from .._core.values import check_name, check_subject, check_tenant
from ..lifecycle.checkpoints import forget_thread, settle_threads
from ..memory.facade import Memory
from ..store import Reader, WriteTransaction
from ..store.contract import CheckpointRow, CheckpointWriteRow, ThreadRow
from ._serde import StrictSerializer

PRUNE_STRATEGIES = ("keep_latest", "delete")


def _thread(config: RunnableConfig | None) -> tuple[str, str, str | None]:
    """(thread_id, checkpoint_ns, checkpoint_id) of a config; a thread is required."""
    configurable = (config or {}).get("configurable") or {}
    thread_id = configurable.get("thread_id")
    if thread_id is None or thread_id == "":
        raise ValidationError("thread_id", thread_id, "a checkpoint config needs configurable.thread_id")
    checkpoint_ns = configurable.get("checkpoint_ns", "") or ""
    if not isinstance(checkpoint_ns, str):
        raise ValidationError("checkpoint_ns", checkpoint_ns, "must be a string")
    checkpoint_id = get_checkpoint_id(config) if config else None
    return check_name(str(thread_id), "thread_id"), checkpoint_ns, checkpoint_id


def _names(value: object, field: str) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        raise ValidationError(field, value, "must be a subject id or a list of them")
    return [check_subject(item, field) for item in items]


class SgamSaver(BaseCheckpointSaver[str]):
    """A LangGraph checkpointer whose threads belong to one tenant of an sgam store.

    ``SgamSaver(memory, tenant="acme")`` wraps an open ``Memory``;
    ``SgamSaver.from_url(url, tenant=...)`` opens one for a ``with`` block. Values are
    serialized by a strict serializer (``allowed_types`` declares more types it may
    rebuild). A thread takes the retention class named by ``retention`` in its config's
    ``metadata`` or ``configurable`` (default ``retention``), when its first checkpoint
    is stored, and the subjects listed under ``subjects`` there.
    """

    def __init__(
        self, memory: Memory, *, tenant: str, allowed_types: Iterable[tuple[str, ...] | type] = (),
        retention: str = DEFAULT_CLASS, serde: SerializerProtocol | None = None,
    ) -> None:
        if not isinstance(memory, Memory):
            raise ValidationError("memory", memory, "must be an sgam Memory")
        super().__init__(serde=serde or StrictSerializer(allowed_types))
        self.memory = memory
        self.tenant = check_tenant(tenant)
        self.retention = check_name(retention, "retention")
        self._classes: set[str] = {DEFAULT_CLASS}
        """Retention classes seen to exist in the tenant. A class is never removed, so a
        put names a known one without asking the database again."""
        self._writer = memory.ledger.backend.checkpoint_writer(self.tenant)
        """The backend's one-call path for a put and a task's writes (PostgreSQL), used
        once the put's retention class is known; None: each is a unit of work."""

    @classmethod
    @contextmanager
    def from_url(
        cls, url: str, *, tenant: str, allowed_types: Iterable[tuple[str, ...] | type] = (),
        retention: str = DEFAULT_CLASS,
    ) -> Iterator[SgamSaver]:
        """Open the saver at ``url`` (``sqlite:///…`` or ``postgresql://…``) for one tenant."""
        with Memory(url) as memory:
            yield cls(memory, tenant=tenant, allowed_types=allowed_types, retention=retention)

    # reads ------------------------------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        thread_id, checkpoint_ns, checkpoint_id = _thread(config)
        with self.memory.ledger.backend.read_one(self.tenant) as reader:
            found = reader.checkpoints().checkpoint_with_writes(thread_id, checkpoint_ns, checkpoint_id)
        return None if found is None else self._tuple(*found)

    def list(
        self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None, limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        thread_id = checkpoint_ns = checkpoint_id = None
        if config is not None:
            thread_id, ns, checkpoint_id = _thread(config)
            checkpoint_ns = ns if "checkpoint_ns" in (config.get("configurable") or {}) else None
        before_id = get_checkpoint_id(before) if before else None
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValidationError("limit", limit, "must be a non-negative integer")
        with self._read() as reader:
            records = reader.checkpoints()
            rows = records.checkpoints(thread_id, checkpoint_ns, checkpoint_id, before_id,
                                       None if filter else limit)
            found: builtins.list[CheckpointTuple] = []
            for row in rows:
                if limit is not None and len(found) >= limit:
                    break
                metadata = self._metadata(row)
                if filter and not all(metadata.get(key) == value for key, value in filter.items()):
                    continue
                found.append(self._tuple(row, records.writes(row.thread_id, row.checkpoint_ns, row.checkpoint_id),
                                         metadata))
        yield from found

    # writes -----------------------------------------------------------------------------

    def put(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        thread_id, checkpoint_ns, parent_id = _thread(config)
        merged = get_checkpoint_metadata(config, metadata)
        extra = {**(config.get("configurable") or {}), **(config.get("metadata") or {})}
        subjects = _names(merged.get("subjects", extra.get("subjects")), "subjects")
        retention = check_name(extra.get("retention", self.retention), "retention")
        run_id = merged.get("run_id")
        kind, body = self._dump(checkpoint)
        metadata_kind, metadata_body = self._dump(merged)
        row = CheckpointRow(thread_id, checkpoint_ns, str(checkpoint["id"]), parent_id,
                            None if run_id is None else str(run_id), kind, body, metadata_kind, metadata_body,
                            self.memory.ledger.now())

        def work(txn: WriteTransaction) -> None:
            if retention not in self._classes and txn.retention_class(retention) is None:
                raise NotFoundError(f"retention: no class {retention!r} in tenant {self.tenant!r}",
                                    field="retention", value=retention)
            txn.checkpoints().put_checkpoint(row, retention, subjects)

        stored: RunnableConfig = {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                                   "checkpoint_id": row.checkpoint_id}}
        if retention in self._classes and self._writer is not None and \
                self._writer.put_checkpoint(row, retention, subjects):
            return stored
        self._write(work)
        self._classes.add(retention)
        return stored

    def put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "",
    ) -> None:
        thread_id, checkpoint_ns, checkpoint_id = _thread(config)
        if checkpoint_id is None:
            raise ValidationError("checkpoint_id", None,
                                  "pending writes belong to a checkpoint: configurable.checkpoint_id")
        rows: dict[int, CheckpointWriteRow] = {}
        for position, (channel, value) in enumerate(writes):
            kind, body = self._dump(value)
            idx = WRITES_IDX_MAP.get(channel, position)
            # A special channel has one slot per task, which its last write takes.
            rows[idx] = CheckpointWriteRow(
                thread_id, checkpoint_ns, checkpoint_id, str(task_id), idx, channel, kind, body, task_path)
        if not rows:
            return
        found = list(rows.values())
        if self._writer is None or not self._writer.put_writes(found):
            self._write(lambda txn: txn.checkpoints().put_writes(found))

    def delete_thread(self, thread_id: str) -> None:
        thread = check_name(str(thread_id), "thread_id")
        self._write(lambda txn: txn.checkpoints().delete_thread(thread))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        runs = [check_name(str(run), "run_ids") for run in _sequence(run_ids, "run_ids")]
        if runs:
            self._write(lambda txn: txn.checkpoints().delete_runs(runs))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        source = check_name(str(source_thread_id), "source_thread_id")
        target = check_name(str(target_thread_id), "target_thread_id")
        self._write(lambda txn: txn.checkpoints().copy_thread(source, target))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """``keep_latest``: each namespace keeps its newest checkpoint and its pending
        writes, and what reading it needs: for a ``DeltaChannel`` it leaves out, its
        ancestors back to one holding the channel's value, with their writes, which the
        read replays; ``delete``: the threads go entirely. Each thread is pruned in its
        own transaction."""
        if strategy not in PRUNE_STRATEGIES:
            raise ValidationError("strategy", strategy, f"must be one of {', '.join(PRUNE_STRATEGIES)}")
        for thread_id in [check_name(str(t), "thread_ids") for t in _sequence(thread_ids, "thread_ids")]:
            if strategy == "delete":
                self.delete_thread(thread_id)
            else:
                self._keep_latest(thread_id)

    def _keep_latest(self, thread_id: str) -> None:
        self._write(lambda txn: txn.checkpoints().keep_latest(thread_id))

    def get_next_version(self, current: str | None, channel: None) -> str:
        """Versions sort as strings: a zero-padded counter, then a random tiebreak."""
        number = 0 if current is None else int(current) if isinstance(current, int) else int(current.split(".")[0])
        return f"{number + 1:032}.{random.random():016}"

    # sgam's own -----------------------------------------------------------------------

    def forget_thread(self, thread_id: str) -> ForgetResult:
        """Erase the thread whole, as if it had never run; the audit log records it by a
        keyed digest, without content."""
        thread = check_name(str(thread_id), "thread_id")
        ledger = self.memory.ledger

        def work(txn: WriteTransaction) -> int:
            if txn.checkpoints().thread(thread) is None:
                raise self._unknown(thread)
            return forget_thread(txn, thread, ledger.now(), ledger.reach, "forget_thread").threads

        ledger.run_write(self.tenant, work, "forget")
        return ForgetResult(0, 0, 0, residue=ledger.backend.purge_residue())

    def apply_retention(self) -> dict[str, builtins.list[str]]:
        """Apply each thread's retention class at the clock's instant, in one transaction
        (``sgam purge`` does the same for every tenant). A thread whose newest checkpoint
        is past the class's ttl is erased whole (``on_expiry: erase``) or pruned to what a
        resume needs (``keep_facts``); a live thread whose older checkpoints are past it
        is pruned to its newest checkpoint per namespace, with the saver's own prune,
        never by deleting rows by age. What happened, by thread."""
        ledger = self.memory.ledger
        now = ledger.now()
        settled = ledger.backend.run_write(
            self.tenant, lambda txn: settle_threads(txn, now, ledger.reach, "apply_retention"))
        if settled.erased:
            ledger.backend.purge_residue()
        return {"erased": settled.erased, "pruned": settled.pruned}

    def threads(self, limit: int = 1000) -> builtins.list[ThreadRow]:
        with self._read() as reader:
            return reader.checkpoints().threads(limit)

    def thread(self, thread_id: str) -> tuple[ThreadRow, builtins.list[str]]:
        """A thread of the tenant and the subjects it names; ``NotFoundError`` for another's."""
        thread = check_name(str(thread_id), "thread_id")
        with self._read() as reader:
            records = reader.checkpoints()
            row = records.thread(thread)
            if row is None:
                raise self._unknown(thread)
            return row, records.thread_subjects(thread)

    def _unknown(self, thread_id: str) -> NotFoundError:
        return NotFoundError(f"thread: no thread {thread_id!r} in tenant {self.tenant!r}",
                             field="thread_id", value=thread_id)

    # async twins ------------------------------------------------------------------------

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def alist(
        self, config: RunnableConfig | None, *, filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None, limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        found = await asyncio.to_thread(lambda: list(self.list(config, filter=filter, before=before, limit=limit)))
        for item in found:
            yield item

    async def aput(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        return await asyncio.to_thread(self.put, config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "",
    ) -> None:
        await asyncio.to_thread(self.put_writes, config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await asyncio.to_thread(self.delete_for_runs, run_ids)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.prune, thread_ids, strategy=strategy)

    # helpers ----------------------------------------------------------------------------

    # Checkpoints have no deadlines of their own (retention prunes them), so their reads
    # and writes go straight to the backend, without the ledger's deadline probe.

    @contextmanager
    def _read(self) -> Iterator[Reader]:
        with self.memory.ledger.backend.read(self.tenant) as reader:
            yield reader

    def _write(self, work: Callable[[WriteTransaction], object]) -> None:
        self.memory.ledger.backend.run_write(self.tenant, work)

    def _dump(self, value: Any) -> tuple[str, bytes]:
        try:
            return self.serde.dumps_typed(value)
        except ValidationError:
            raise
        except (TypeError, ValueError) as error:
            raise ValidationError("checkpoint", type(value).__name__, f"cannot be serialized: {error}") from None

    def _tuple(
        self, row: CheckpointRow, writes: Sequence[CheckpointWriteRow], metadata: Any = None,
    ) -> CheckpointTuple:
        thread_id, checkpoint_ns = row.thread_id, row.checkpoint_ns
        checkpoint = self._stored(row, "checkpoint", row.kind, row.body)
        if not isinstance(checkpoint, dict):
            raise _unreadable(row, "checkpoint", f"a {type(checkpoint).__name__}, not a mapping")
        return CheckpointTuple(
            config={"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                     "checkpoint_id": row.checkpoint_id}},
            checkpoint=checkpoint,  # type: ignore[arg-type]
            metadata=metadata if metadata is not None else self._metadata(row),
            parent_config={"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                            "checkpoint_id": row.parent_id}} if row.parent_id else None,
            pending_writes=[(w.task_id, w.channel, self._stored(row, f"pending write {w.task_id!r}/{w.idx}",
                                                                w.kind, w.body)) for w in writes],
        )

    def _metadata(self, row: CheckpointRow) -> Any:
        metadata = self._stored(row, "metadata", row.metadata_kind, row.metadata)
        if not isinstance(metadata, dict):
            raise _unreadable(row, "metadata", f"a {type(metadata).__name__}, not a mapping")
        return metadata

    def _stored(self, row: CheckpointRow, part: str, kind: str, body: bytes) -> Any:
        """A stored value, decoded; bytes the serializer cannot read (another writer's,
        damaged, truncated, nested past the decoder's depth) or refuses to rebuild (a
        pickle, an undeclared type a laxer writer stored) are a ``StoreError`` naming the
        checkpoint: the caller asked nothing wrong, the stored row is what cannot be
        read. No decoding calls code a stored value names."""
        try:
            return self.serde.loads_typed((kind, body))
        except ValidationError as refused:
            raise _unreadable(row, part, str(refused)) from None
        except SgamError:
            raise
        except Exception as error:  # noqa: BLE001 - whatever a decoder raises on bytes it cannot read
            raise _unreadable(row, part, f"{type(error).__name__}: {str(error)[:120]}") from None


def _unreadable(row: CheckpointRow, part: str, reason: str) -> StoreError:
    return StoreError(f"checkpoint {row.checkpoint_id!r} of thread {row.thread_id!r} (namespace "
                      f"{row.checkpoint_ns!r}): its stored {part} cannot be read ({reason})",
                      field="checkpoint_id", value=row.checkpoint_id)


def _sequence(values: Sequence[str], field: str) -> Sequence[str]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ValidationError(field, values, "must be a list of ids, not one string")
    return values
