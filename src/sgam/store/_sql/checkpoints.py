"""The statements of checkpoint memory (``SgamSaver``, LangGraph's checkpointer), written
once for both backends.

A checkpoint is stored whole: its channel values travel inside its own serialized body,
not in blobs shared between checkpoints, and an erasure is a deletion of rows, with
nothing shared left to collect. One kind of channel still reaches back: a LangGraph
``DeltaChannel`` leaves its value out of most checkpoints and is rebuilt from the
pending writes of their ancestors (``checkpoint_delta.py``), so a pruned history keeps,
behind each survivor, the ancestors and writes it is rebuilt from. Bodies are the
serializer's bytes; the rows carry only what addressing, listing and erasure need."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..contract.checkpoints import CheckpointRow, CheckpointWriteRow, ThreadRow
from .checkpoint_delta import held, replayed
from .ledger import Scoped
from .session import CHUNK

CHECKPOINT_COLUMNS = (
    "thread_id, checkpoint_ns, checkpoint_id, parent_id, run_id, kind, body, metadata_kind, metadata, created_at"
)
WRITE_COLUMNS = "thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, kind, body, task_path"


def _checkpoint(row: Sequence[Any]) -> CheckpointRow:
    values = list(row)
    values[6], values[8] = bytes(values[6]), bytes(values[8])
    return CheckpointRow(*values)


def _write(row: Sequence[Any]) -> CheckpointWriteRow:
    values = list(row)
    values[7] = bytes(values[7])
    return CheckpointWriteRow(*values)


_THREADS = (
    "SELECT t.thread_id, t.retention, count(c.checkpoint_id), min(c.created_at), max(c.created_at) "
    "FROM saver_threads t LEFT JOIN saver_checkpoints c ON c.tenant = ? AND c.thread_id = t.thread_id"
)
_BY_THREAD = "GROUP BY t.thread_id, t.retention"


PUT_THREAD = (
    "INSERT INTO saver_threads (tenant, thread_id, retention) VALUES (?, ?, ?) "
    "ON CONFLICT (tenant, thread_id) DO NOTHING"
)
PUT_CHECKPOINT = (
    f"INSERT INTO saver_checkpoints (tenant, {CHECKPOINT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (tenant, thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET "
    "parent_id = excluded.parent_id, run_id = excluded.run_id, kind = excluded.kind, body = excluded.body, "
    "metadata_kind = excluded.metadata_kind, metadata = excluded.metadata, created_at = excluded.created_at"
)


def _instant(value: Any) -> int | None:
    return None if value is None else int(value)


def _thread(row: Sequence[Any]) -> ThreadRow:
    return ThreadRow(str(row[0]), str(row[1]), int(row[2]), _instant(row[3]), _instant(row[4]))


def _with_writes(by_id: bool) -> str:
    """The checkpoint (side 0) and its pending writes (side 1) as rows of one shape, the
    address left out (the caller has it): side, then the checkpoint's id, parent_id,
    run_id, kind, body, metadata_kind, metadata and created_at, where a write has its
    task_path, task_id, channel, kind, body and idx. Nine columns instead of a union of
    the tables' twelve: every column of every row is a value the driver builds (on
    SQLite the statement took 10.0 µs with twelve, 8.6 µs with nine). A write's idx is
    sent as text, in the column of the checkpoint's ``metadata_kind`` (a union's column
    has one type on PostgreSQL). The caller orders the writes: an order of the whole
    would make the database sort."""
    pick = "AND checkpoint_id = ?" if by_id else "ORDER BY checkpoint_id DESC LIMIT 1"
    checkpoint_id = "?" if by_id else (
        "(SELECT max(checkpoint_id) FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? AND checkpoint_ns = ?)")
    return (
        "SELECT 0, checkpoint_id, parent_id, run_id, kind, body, metadata_kind, metadata, created_at "
        "FROM (SELECT checkpoint_id, parent_id, run_id, kind, body, metadata_kind, metadata, created_at "
        f"FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? AND checkpoint_ns = ? {pick}) AS c "
        "UNION ALL SELECT 1, task_path, task_id, channel, kind, body, CAST(idx AS TEXT), NULL, NULL "
        "FROM saver_writes WHERE tenant = ? AND thread_id = ? AND checkpoint_ns = ? "
        f"AND checkpoint_id = {checkpoint_id}"
    )


def _write_order(write: CheckpointWriteRow) -> tuple[str, str, int]:
    return write.task_path, write.task_id, write.idx


def ordered_writes(writes: list[CheckpointWriteRow]) -> list[CheckpointWriteRow]:
    """A checkpoint's pending writes in LangGraph's order: by task path, task, idx."""
    if len(writes) > 1:
        writes.sort(key=_write_order)
    return writes


_WITH_WRITES = _with_writes(by_id=False)
_WITH_WRITES_BY_ID = _with_writes(by_id=True)


class CheckpointRecords(Scoped):
    """A tenant's checkpoints inside one read or one write unit of work."""

    # reads --------------------------------------------------------------------------

    def checkpoint(self, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None) -> CheckpointRow | None:
        """The checkpoint with that id, or the thread's newest in the namespace."""
        if checkpoint_id is not None:
            row = self._db.row(
                f"SELECT {CHECKPOINT_COLUMNS} FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? "
                "AND checkpoint_ns = ? AND checkpoint_id = ?", (self.tenant, thread_id, checkpoint_ns, checkpoint_id))
        else:
            row = self._db.row(
                f"SELECT {CHECKPOINT_COLUMNS} FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? "
                "AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1", (self.tenant, thread_id, checkpoint_ns))
        return _checkpoint(row) if row else None

    def checkpoint_with_writes(
        self, thread_id: str, checkpoint_ns: str, checkpoint_id: str | None,
    ) -> tuple[CheckpointRow, list[CheckpointWriteRow]] | None:
        """``checkpoint`` and its pending writes in one statement: what a resume reads,
        one snapshot without a transaction around it and one round trip."""
        scope = (self.tenant, thread_id, checkpoint_ns)
        if checkpoint_id is None:
            rows = self._db.rows(_WITH_WRITES, (*scope, *scope, *scope))
        else:
            rows = self._db.rows(_WITH_WRITES_BY_ID, (*scope, checkpoint_id, *scope, checkpoint_id))
        head: Sequence[Any] | None = None
        found: list[Sequence[Any]] = []
        for row in rows:
            if row[0] == 0:
                head = row
            else:
                found.append(row)
        if head is None:
            return None
        checkpoint_id = head[1]
        writes = [CheckpointWriteRow(thread_id, checkpoint_ns, checkpoint_id, row[2], int(row[6]), row[3], row[4],
                                     bytes(row[5]), row[1]) for row in found]
        return (CheckpointRow(thread_id, checkpoint_ns, checkpoint_id, head[2], head[3], head[4], bytes(head[5]),
                              head[6], bytes(head[7]), int(head[8])), ordered_writes(writes))

    def checkpoints(
        self, thread_id: str | None, checkpoint_ns: str | None, checkpoint_id: str | None, before: str | None,
        limit: int | None,
    ) -> list[CheckpointRow]:
        """Newest first (checkpoint ids grow with time), each filter optional."""
        where = ["tenant = ?"]
        params: list[Any] = [self.tenant]
        for column, value in (("thread_id", thread_id), ("checkpoint_ns", checkpoint_ns),
                              ("checkpoint_id", checkpoint_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if before is not None:
            where.append("checkpoint_id < ?")
            params.append(before)
        tail = ""
        if limit is not None:
            tail = " LIMIT ?"
            params.append(limit)
        rows = self._db.rows(
            f"SELECT {CHECKPOINT_COLUMNS} FROM saver_checkpoints WHERE {' AND '.join(where)} "
            f"ORDER BY checkpoint_id DESC, thread_id, checkpoint_ns{tail}", params)
        return [_checkpoint(row) for row in rows]

    def writes(self, thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> list[CheckpointWriteRow]:
        rows = self._db.rows(
            f"SELECT {WRITE_COLUMNS} FROM saver_writes WHERE tenant = ? AND thread_id = ? "
            "AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_path, task_id, idx",
            (self.tenant, thread_id, checkpoint_ns, checkpoint_id))
        return [_write(row) for row in rows]

    def threads(self, limit: int) -> list[ThreadRow]:
        rows = self._db.rows(f"{_THREADS} WHERE t.tenant = ? {_BY_THREAD} ORDER BY t.thread_id LIMIT ?",
                             (self.tenant, self.tenant, limit))
        return [_thread(row) for row in rows]

    def thread(self, thread_id: str) -> ThreadRow | None:
        row = self._db.row(f"{_THREADS} WHERE t.tenant = ? AND t.thread_id = ? {_BY_THREAD}",
                           (self.tenant, self.tenant, thread_id))
        return _thread(row) if row else None

    def thread_subjects(self, thread_id: str) -> list[str]:
        rows = self._db.rows("SELECT subject FROM saver_subjects WHERE tenant = ? AND thread_id = ? "
                             "ORDER BY subject", (self.tenant, thread_id))
        return [str(row[0]) for row in rows]

    def threads_naming(self, subject: str) -> list[str]:
        rows = self._db.rows("SELECT thread_id FROM saver_subjects WHERE tenant = ? AND subject = ? "
                             "ORDER BY thread_id", (self.tenant, subject))
        return [str(row[0]) for row in rows]

    # writes -------------------------------------------------------------------------

    def put_checkpoint(self, row: CheckpointRow, retention: str, subjects: Sequence[str]) -> None:
        """Store a checkpoint (a second put of one id replaces it), registering its thread
        under ``retention`` the first time and the subjects it names."""
        self._db.run(PUT_THREAD, (self.tenant, row.thread_id, retention))
        self._db.run(PUT_CHECKPOINT, self._checkpoint_params(row))
        self._put_subjects(row.thread_id, subjects)

    def _checkpoint_params(self, row: CheckpointRow) -> tuple[Any, ...]:
        return (self.tenant, row.thread_id, row.checkpoint_ns, row.checkpoint_id, row.parent_id, row.run_id, row.kind,
                row.body, row.metadata_kind, row.metadata, self._db.moment(row.created_at))

    def _put_subjects(self, thread_id: str, subjects: Sequence[str]) -> None:
        if subjects:
            self._db.run_many(
                "INSERT INTO saver_subjects (tenant, subject, thread_id) VALUES (?, ?, ?) "
                "ON CONFLICT (tenant, subject, thread_id) DO NOTHING",
                [(self.tenant, subject, thread_id) for subject in dict.fromkeys(subjects)])

    def set_retention(self, thread_id: str, retention: str) -> bool:
        return self._db.count("UPDATE saver_threads SET retention = ? WHERE tenant = ? AND thread_id = ?",
                              (retention, self.tenant, thread_id)) > 0

    def put_writes(self, rows: Sequence[CheckpointWriteRow]) -> None:
        """Store a task's writes: a regular write (``idx`` >= 0) keeps the first one stored
        for its slot, a special one (errors, interrupts: ``idx`` < 0) replaces it."""
        self._put_writes([r for r in rows if r.idx >= 0], replace=False)
        self._put_writes([r for r in rows if r.idx < 0], replace=True)

    def _put_writes(self, rows: Sequence[CheckpointWriteRow], replace: bool) -> None:
        if not rows:  # nothing to send: on PostgreSQL even an empty batch costs a pipeline exchange
            return
        conflict = ("DO UPDATE SET channel = excluded.channel, kind = excluded.kind, body = excluded.body, "
                    "task_path = excluded.task_path" if replace else "DO NOTHING")
        self._db.run_many(
            f"INSERT INTO saver_writes (tenant, {WRITE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            f"ON CONFLICT (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx) {conflict}",
            [(self.tenant, r.thread_id, r.checkpoint_ns, r.checkpoint_id, r.task_id, r.idx, r.channel, r.kind,
              r.body, r.task_path) for r in rows])

    def delete_thread(self, thread_id: str) -> int:
        """Every row of the thread; how many checkpoints went."""
        scope = (self.tenant, thread_id)
        self._db.run("DELETE FROM saver_writes WHERE tenant = ? AND thread_id = ?", scope)
        self._db.run("DELETE FROM saver_subjects WHERE tenant = ? AND thread_id = ?", scope)
        self._db.run("DELETE FROM saver_threads WHERE tenant = ? AND thread_id = ?", scope)
        return self._db.count("DELETE FROM saver_checkpoints WHERE tenant = ? AND thread_id = ?", scope)

    def delete_expired_thread(self, thread_id: str, deadline: int) -> bool:
        """Every row of the thread, if no checkpoint of it was stored after ``deadline``;
        whether it went. Retention read the thread as expired before this runs, and a put
        may commit in between (PostgreSQL's READ COMMITTED takes no lock on the thread):
        its checkpoint then keeps the thread, untouched. The thread's row goes first, by
        that re-check, so a put that starts afterwards waits for this transaction and
        registers the thread again; only checkpoints stored by the deadline go, with
        their pending writes, so one still uncommitted meanwhile stays as well."""
        scope, moment = (self.tenant, thread_id), self._db.moment(deadline)
        newer = ("NOT EXISTS (SELECT 1 FROM saver_checkpoints c WHERE c.tenant = ? AND c.thread_id = ? "
                 "AND c.created_at > ?)")
        if not self._db.count(f"DELETE FROM saver_threads WHERE tenant = ? AND thread_id = ? AND {newer}",
                              (*scope, *scope, moment)):
            return False
        self._db.run(
            "DELETE FROM saver_writes WHERE tenant = ? AND thread_id = ? AND NOT EXISTS (SELECT 1 FROM "
            "saver_checkpoints c WHERE c.tenant = saver_writes.tenant AND c.thread_id = saver_writes.thread_id "
            "AND c.checkpoint_ns = saver_writes.checkpoint_ns AND c.checkpoint_id = saver_writes.checkpoint_id "
            "AND c.created_at > ?)", (*scope, moment))
        self._db.run("DELETE FROM saver_subjects WHERE tenant = ? AND thread_id = ?", scope)
        self._db.run("DELETE FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? AND created_at <= ?",
                     (*scope, moment))
        return True

    def delete_runs(self, run_ids: Sequence[str]) -> int:
        """The checkpoints the runs made and their pending writes, a chunk of runs per
        two statements."""
        gone = 0
        for start in range(0, len(run_ids), CHUNK):
            chunk = list(run_ids[start:start + CHUNK])
            marks = ", ".join("?" * len(chunk))
            self._db.run(
                "DELETE FROM saver_writes WHERE tenant = ? AND EXISTS (SELECT 1 FROM saver_checkpoints c "
                f"WHERE c.tenant = ? AND c.run_id IN ({marks}) AND c.thread_id = saver_writes.thread_id "
                "AND c.checkpoint_ns = saver_writes.checkpoint_ns AND c.checkpoint_id = saver_writes.checkpoint_id)",
                (self.tenant, self.tenant, *chunk))
            gone += self._db.count(f"DELETE FROM saver_checkpoints WHERE tenant = ? AND run_id IN ({marks})",
                                   (self.tenant, *chunk))
        return gone

    def keep_latest(self, thread_id: str) -> int:
        """Prune the thread to the newest checkpoint of each namespace and what reading it
        needs, with their pending writes: the ancestors on its ``parent_id`` path back to
        one holding a value for each delta channel it rebuilds (all of the path when its
        bytes cannot tell). The oldest survivor's parent link is cut: its parent went.
        Only checkpoints older than the newest read here go, and only their writes: a
        put that commits while the prune runs (PostgreSQL's READ COMMITTED takes no lock
        on the thread) stores a newer id, which stays with its pending writes. How many
        checkpoints went."""
        newest = self._db.rows(
            "SELECT checkpoint_ns, max(checkpoint_id) FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? "
            "GROUP BY checkpoint_ns", (self.tenant, thread_id))
        gone = 0
        for checkpoint_ns, checkpoint_id in newest:
            kept = self._needed(thread_id, checkpoint_ns, checkpoint_id)
            if len(kept) == 1:
                scope = (self.tenant, thread_id, checkpoint_ns, checkpoint_id)
                self._db.run("DELETE FROM saver_writes WHERE tenant = ? AND thread_id = ? AND checkpoint_ns = ? "
                             "AND checkpoint_id < ?", scope)
                gone += self._db.count("DELETE FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? "
                                       "AND checkpoint_ns = ? AND checkpoint_id < ?", scope)
            else:
                gone += self._delete_all_but(thread_id, checkpoint_ns, checkpoint_id, set(kept))
            self._db.run("UPDATE saver_checkpoints SET parent_id = NULL WHERE tenant = ? AND thread_id = ? "
                         "AND checkpoint_ns = ? AND checkpoint_id = ? AND parent_id IS NOT NULL",
                         (self.tenant, thread_id, checkpoint_ns, kept[-1]))
        return gone

    def _needed(self, thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> list[str]:
        """``checkpoint_id`` and its ancestors, newest first, back to the first that holds
        a value for every delta channel the checkpoint rebuilds (to the root when its
        bytes cannot tell which those are)."""
        head = self.checkpoint(thread_id, checkpoint_ns, checkpoint_id)
        if head is None:
            return [checkpoint_id]
        wanted = replayed(head.kind, head.body, head.metadata_kind, head.metadata)
        kept = [checkpoint_id]
        seen = {checkpoint_id}
        parent = head.parent_id
        while parent is not None and parent not in seen and (wanted is None or wanted):
            row = self.checkpoint(thread_id, checkpoint_ns, parent)
            if row is None:
                break
            kept.append(parent)
            seen.add(parent)
            if wanted is not None:
                wanted -= held(row.kind, row.body)
            parent = row.parent_id
        return kept

    def _delete_all_but(self, thread_id: str, checkpoint_ns: str, newest: str, kept: set[str]) -> int:
        """Every checkpoint of the namespace older than ``newest`` outside ``kept``, and
        their pending writes, a chunk of ids per two statements; how many checkpoints went."""
        scope = (self.tenant, thread_id, checkpoint_ns)
        present = self._db.rows(
            "SELECT checkpoint_id FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? AND checkpoint_ns = ? "
            "AND checkpoint_id < ? UNION SELECT checkpoint_id FROM saver_writes WHERE tenant = ? AND thread_id = ? "
            "AND checkpoint_ns = ? AND checkpoint_id < ?", (*scope, newest, *scope, newest))
        doomed = sorted(str(row[0]) for row in present if str(row[0]) not in kept)
        gone = 0
        for start in range(0, len(doomed), CHUNK):
            chunk = doomed[start:start + CHUNK]
            marks = ", ".join("?" * len(chunk))
            self._db.run("DELETE FROM saver_writes WHERE tenant = ? AND thread_id = ? AND checkpoint_ns = ? "
                         f"AND checkpoint_id IN ({marks})", (*scope, *chunk))
            gone += self._db.count("DELETE FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? "
                                   f"AND checkpoint_ns = ? AND checkpoint_id IN ({marks})", (*scope, *chunk))
        return gone

    def copy_thread(self, source: str, target: str) -> int:
        """Every checkpoint and pending write of ``source`` under ``target`` (replacing
        what ``target`` has at the same addresses); how many checkpoints were copied."""
        if source == target:
            return 0
        self.delete_thread(target)
        self._db.run(
            "INSERT INTO saver_threads (tenant, thread_id, retention) SELECT tenant, ?, retention "
            "FROM saver_threads WHERE tenant = ? AND thread_id = ?", (target, self.tenant, source))
        self._db.run(
            "INSERT INTO saver_subjects (tenant, subject, thread_id) SELECT tenant, subject, ? "
            "FROM saver_subjects WHERE tenant = ? AND thread_id = ?", (target, self.tenant, source))
        self._db.run(
            f"INSERT INTO saver_writes (tenant, {WRITE_COLUMNS}) SELECT tenant, ?, checkpoint_ns, "
            "checkpoint_id, task_id, idx, channel, kind, body, task_path FROM saver_writes "
            "WHERE tenant = ? AND thread_id = ?", (target, self.tenant, source))
        return self._db.count(
            f"INSERT INTO saver_checkpoints (tenant, {CHECKPOINT_COLUMNS}) SELECT tenant, ?, checkpoint_ns, "
            "checkpoint_id, parent_id, run_id, kind, body, metadata_kind, metadata, created_at FROM saver_checkpoints "
            "WHERE tenant = ? AND thread_id = ?", (target, self.tenant, source))


    # erasure ------------------------------------------------------------------------

    def holding(self, needles: Sequence[bytes]) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
        """Where the bytes of any of ``needles`` are kept: (thread, namespace, oldest
        checkpoint id) of each namespace with a checkpoint (state or metadata) holding
        them, and (thread, namespace, checkpoint id) of each checkpoint with a pending
        write holding them."""
        if not needles:
            return [], []
        state = " OR ".join(self._db.holds_bytes.format(column) for column in ("body", "metadata") for _ in needles)
        first = self._db.rows(
            f"SELECT thread_id, checkpoint_ns, min(checkpoint_id) FROM saver_checkpoints WHERE tenant = ? "
            f"AND ({state}) GROUP BY thread_id, checkpoint_ns ORDER BY thread_id, checkpoint_ns",
            (self.tenant, *needles, *needles))
        written = " OR ".join(self._db.holds_bytes.format("body") for _ in needles)
        writes = self._db.rows(
            f"SELECT DISTINCT thread_id, checkpoint_ns, checkpoint_id FROM saver_writes WHERE tenant = ? "
            f"AND ({written}) ORDER BY thread_id, checkpoint_ns, checkpoint_id", (self.tenant, *needles))
        return ([(str(r[0]), str(r[1]), str(r[2])) for r in first],
                [(str(r[0]), str(r[1]), str(r[2])) for r in writes])

    def delete_from(self, thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> int:
        """The namespace's checkpoints from ``checkpoint_id`` on (ids grow with time) and
        their pending writes; how many checkpoints went."""
        scope = (self.tenant, thread_id, checkpoint_ns, checkpoint_id)
        self._db.run("DELETE FROM saver_writes WHERE tenant = ? AND thread_id = ? AND checkpoint_ns = ? "
                     "AND checkpoint_id >= ?", scope)
        return self._db.count("DELETE FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? "
                              "AND checkpoint_ns = ? AND checkpoint_id >= ?", scope)

    def delete_pending_writes(self, thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> None:
        """Every pending write made on top of that checkpoint: its tasks run again."""
        self._db.run("DELETE FROM saver_writes WHERE tenant = ? AND thread_id = ? AND checkpoint_ns = ? "
                     "AND checkpoint_id = ?", (self.tenant, thread_id, checkpoint_ns, checkpoint_id))

    def has_checkpoints(self, thread_id: str) -> bool:
        return self._db.row("SELECT 1 FROM saver_checkpoints WHERE tenant = ? AND thread_id = ? LIMIT 1",
                            (self.tenant, thread_id)) is not None


class CheckpointAccess(Scoped):
    """Checkpoint memory over the same session: a read or a write unit of work hands out
    its checkpoints as one capability instead of carrying every statement itself."""

    def checkpoints(self) -> CheckpointRecords:
        return CheckpointRecords(self._db, self.tenant)
