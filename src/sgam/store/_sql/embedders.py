"""Which embedder a tenant's search uses, how far a new one's vectors are, and removing
every vector of the others: the statements re-embedding needs (``search/reembedding.py``),
written once for both backends. Mixed into each backend's ``SearchIndex``."""

from __future__ import annotations

from typing import ClassVar

from .._requests import EmbedderState
from ..contract import Reader, WriteTransaction
from ..contract.search import EmbedderStateRow, VectorProgress
from .session import Session

STATE = ("SELECT active, active_spec, building, building_spec, building_since, switched_at "
         "FROM search_embedders WHERE tenant = ?")

PROGRESS = (
    "SELECT (SELECT count(*) FROM episodes WHERE tenant = ?), "
    "(SELECT count(*) FROM episode_vectors WHERE tenant = ? AND model = ?), "
    "(SELECT count(*) FROM assertions WHERE tenant = ? AND recorded_to IS NULL), "
    "(SELECT count(*) FROM assertion_vectors v JOIN assertions a ON a.tenant = v.tenant AND a.row_id = v.row_id "
    "WHERE v.tenant = ? AND v.model = ? AND a.recorded_to IS NULL), "
    "(SELECT count(*) FROM document_chunks WHERE tenant = ?), "
    "(SELECT count(*) FROM document_vectors WHERE tenant = ? AND model = ?)"
)
"""One statement: each count is an index range of the tenant (episode and chunk vectors
die with their rows, so a vector of the model means a row that has one)."""

VECTOR_TABLES = ("episode_vectors", "assertion_vectors", "document_vectors")


def scope(handle: Reader | WriteTransaction) -> tuple[Session, str]:
    """The session and tenant of a read or unit of work of the backend."""
    return handle.session(), handle.tenant


def _moment(db: Session, value: int | None) -> object:
    return None if value is None else db.moment(value)


class PortableEmbedders:
    """The tenant's embedder state and the vectors of its models, in the caller's read or
    unit of work (``handle``)."""

    ROW_LOCKS: ClassVar[dict[str, str]] = {}
    """How a unit of work locks the row it read (``share``, ``update``): nothing on SQLite,
    whose write transactions already exclude each other."""

    def embedder_state(self, handle: Reader | WriteTransaction, lock: str = "") -> EmbedderStateRow | None:
        """The tenant's row, or None when no embedder was ever recorded for it."""
        db, tenant = scope(handle)
        locked = self.ROW_LOCKS.get(lock, "")
        rows = db.rows(STATE + locked, (tenant,)) if locked else db.answer(EmbedderState(), STATE, (tenant,))
        if not rows:
            return None
        row = rows[0]
        text = [None if value is None else str(value) for value in row[:4]]
        time = [None if value is None else int(value) for value in row[4:]]
        return EmbedderStateRow(text[0], text[1], text[2], text[3], time[0], time[1])

    def put_embedder_state(self, handle: WriteTransaction, state: EmbedderStateRow) -> None:
        db, tenant = scope(handle)
        db.run(
            "INSERT INTO search_embedders (tenant, active, active_spec, building, building_spec, building_since, "
            "switched_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant) DO UPDATE SET active = excluded.active, "
            "active_spec = excluded.active_spec, building = excluded.building, building_spec = excluded.building_spec, "
            "building_since = excluded.building_since, switched_at = excluded.switched_at",
            (tenant, state.active, state.active_spec, state.building, state.building_spec,
             _moment(db, state.building_since), _moment(db, state.switched_at)),
        )

    def vector_progress(self, handle: Reader | WriteTransaction, model: str) -> VectorProgress:
        db, tenant = scope(handle)
        row = db.row(PROGRESS, (tenant, tenant, model, tenant, tenant, model, tenant, tenant, model))
        assert row is not None
        return VectorProgress(*(int(value) for value in row))

    def drop_vectors_except(self, handle: WriteTransaction, model: str) -> int:
        """Delete the tenant's episode, fact and document vectors of every model but
        ``model``; how many went."""
        db, tenant = scope(handle)
        return sum(db.count(f"DELETE FROM {table} WHERE tenant = ? AND model <> ?", (tenant, model))
                   for table in VECTOR_TABLES)
