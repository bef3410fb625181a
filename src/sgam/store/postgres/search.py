"""PostgreSQL search: generated ``tsvector`` columns with GIN indexes, and pgvector with an
HNSW index per dimension, queried directly (no in-process cache to invalidate).

Every read runs in the backend's tenant-scoped transaction, so row-level security binds
it; every index entry of an erased row is deleted by ``ON DELETE CASCADE`` (vectors) or a
trigger (ledger keys) in the erasing transaction. See docs/recall.md ("PostgreSQL").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from ..._errors import ValidationError
from .._protocol import EpisodeRow, WriteTransaction
from .._rows import EPISODE_COLUMNS
from .._search import SearchFilter, StoredEpisode, fact_text
from .adapters import Micros, micros

if TYPE_CHECKING:  # the backend imports this module when asked for its index
    from .backend import Cursor, PostgresBackend, PostgresWrite

HNSW_MAX_DIMENSIONS = 2000
"""pgvector's HNSW limit for ``vector``; larger vectors are still searched, exactly."""



def tsquery_sql(terms: Sequence[str]) -> str:
    """Any of the terms, OR-ed: each term a bound parameter of ``plainto_tsquery``, so
    tsquery syntax in user text is never interpreted."""
    return "(SELECT " + " || ".join("plainto_tsquery('english', %s)" for _ in terms) + ")"


def _filter_sql(flt: SearchFilter, alias: str = "e") -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if flt.since is not None:
        clauses.append(f"{alias}.occurred_at >= %s")
        params.append(Micros(flt.since))
    if flt.until is not None:
        clauses.append(f"{alias}.occurred_at <= %s")
        params.append(Micros(flt.until))
    if flt.known_at is not None:
        clauses.append(f"{alias}.recorded_at <= %s")
        params.append(Micros(flt.known_at))
    for column, wanted in (("session", flt.session), ("speaker", flt.speaker)):
        if wanted is not None:
            clauses.append(f"{alias}.{column} = %s")
            params.append(wanted)
    for column, wanted in (("subject", flt.subject), ("memory_type", flt.memory_type)):
        if wanted is not None:
            clauses.append(
                f"EXISTS (SELECT 1 FROM operations o WHERE o.tenant = {alias}.tenant "
                f"AND o.source = {alias}.episode_id AND o.{column} = %s)"
            )
            params.append(wanted)
    return "".join(f" AND {clause}" for clause in clauses), params


def _visible(known_at: int | None) -> tuple[str, tuple[Micros, ...]]:
    """Versions of ``a`` current now, or as the ledger stood at ``known_at``."""
    if known_at is None:
        return "a.recorded_to IS NULL", ()
    return "a.recorded_from <= %s AND (a.recorded_to IS NULL OR a.recorded_to > %s)", (Micros(known_at),) * 2


def _dimension(vector: npt.NDArray[np.float32]) -> int:
    if vector.ndim != 1 or vector.shape[0] < 1:
        raise ValidationError("vector", f"shape {vector.shape}", "must be one non-empty row")
    return int(vector.shape[0])


def _floats(vector: npt.NDArray[np.float32]) -> list[float]:
    values: list[float] = np.asarray(vector, dtype=np.float32).astype(np.float64).tolist()
    return values


def _hnsw_settings(cur: Cursor, limit: int) -> None:
    """Let the HNSW scan go on past filtered-out rows (other tenants, models, times) in
    exact distance order; search at least as wide as the result."""
    cur.execute(
        "SELECT set_config('hnsw.iterative_scan', 'strict_order', true), "
        "set_config('hnsw.ef_search', %s, true)",
        (str(min(1000, max(40, limit))),),
    )


class PostgresSearchIndex:
    """``SearchIndex`` over a ``PostgresBackend``: its pool, its tenant-scoped transactions."""

    def __init__(self, backend: PostgresBackend) -> None:
        self._backend = backend

    @contextmanager
    def _read(self, tenant: str) -> Iterator[Cursor]:
        with self._backend.read(tenant) as reader:
            yield reader._cur

    def _ensure_index(self, cur: Cursor, dims: int) -> None:
        """Have the dimension's HNSW index (owner-run function; a catalog lookup once it
        exists). Asked on every write, not remembered: the transaction that created it may
        roll back, and pipeline mode makes the call cost no round trip."""
        if dims <= HNSW_MAX_DIMENSIONS:
            cur.execute("SELECT sgam_vector_index(%s::integer)", (dims,))

    def put_episode_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[str, npt.NDArray[np.float32]]]
    ) -> None:
        cur = cast("PostgresWrite", txn)._cur
        for dims, group in _by_dimension(dict(items)).items():
            self._ensure_index(cur, dims)
            ids = list(group)
            cur.execute(
                "INSERT INTO episode_vectors (tenant, episode_id, model, seq, dims, embedding) "
                f"SELECT e.tenant, e.episode_id, %s, e.seq, {dims}, "
                f"((%s::float8[])[(i.n - 1) * {dims} + 1 : i.n * {dims}])::vector "
                "FROM unnest(%s::text[]) WITH ORDINALITY AS i(id, n) "
                "JOIN episodes e ON e.tenant = %s AND e.episode_id = i.id "
                "ON CONFLICT (tenant, episode_id, model) DO UPDATE "
                "SET dims = excluded.dims, embedding = excluded.embedding",
                (model, [x for key in ids for x in _floats(group[key])], ids, txn.tenant),
            )

    def keyword_episodes(self, tenant: str, terms: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """BM25-like: each term's ``ts_rank`` (saturating in its frequency, divided by the
        log of the length) weighted by its inverse document frequency in this tenant.
        ts_rank alone has no IDF, and on LoCoMo that cost a fifth of BM25's recall. The
        query runs in ``sgam_keyword_episodes`` (migration 6), where the GIN index can
        serve it; it reads the tenant this transaction set."""
        if not terms:
            return []
        with self._read(tenant) as cur:
            rows = cur.execute(
                "SELECT s FROM sgam_keyword_episodes(%s::text[], %s::integer, %s, %s, %s, %s, %s, %s, %s) AS s",
                (list(terms), limit, micros(flt.since), micros(flt.until), flt.session, flt.speaker,
                 flt.subject, flt.memory_type, micros(flt.known_at)),
            ).fetchall()
        return [int(row[0]) for row in rows]

    def vector_episodes(
        self, tenant: str, model: str, vector: npt.NDArray[np.float32], flt: SearchFilter, limit: int
    ) -> list[int]:
        dims = _dimension(vector)
        where, params = _filter_sql(flt)
        join = "" if not where else " JOIN episodes e ON e.tenant = v.tenant AND e.episode_id = v.episode_id"
        sql = (
            f"SELECT v.seq FROM episode_vectors v{join} "
            f"WHERE v.tenant = %s AND v.model = %s AND v.dims = {dims}{where} "
            f"ORDER BY v.embedding::vector({dims}) <=> %s::float8[]::vector({dims}) LIMIT %s"
        )
        with self._read(tenant) as cur:
            _hnsw_settings(cur, limit)
            rows = cur.execute(sql, (tenant, model, *params, _floats(vector), limit)).fetchall()
        return [int(row[0]) for row in rows]

    def episodes_by_key(self, tenant: str, keys: Sequence[int]) -> dict[int, StoredEpisode]:
        if not keys:
            return {}
        with self._read(tenant) as cur:
            rows = cur.execute(
                f"SELECT seq, {EPISODE_COLUMNS} FROM episodes WHERE tenant = %s AND seq = ANY(%s::bigint[])",
                (tenant, list(dict.fromkeys(int(key) for key in keys))),
            ).fetchall()
        return {int(row[0]): StoredEpisode(int(row[0]), EpisodeRow(*row[1:])) for row in rows}

    def matching_keys(
        self, tenant: str, terms: Sequence[str], at: int, limit: int, known_at: int | None = None
    ) -> list[tuple[str, str]]:
        if not terms:
            return []
        query = tsquery_sql(terms)
        visible, known = _visible(known_at)
        sql = (
            f"SELECT k.subject, k.attribute FROM ledger_keys k, {query} AS q(query) "
            "WHERE k.tenant = %s AND k.search @@ q.query AND EXISTS (SELECT 1 FROM assertions a "
            "WHERE a.tenant = k.tenant AND a.subject = k.subject AND a.attribute = k.attribute "
            f"AND {visible} AND a.valid_from <= %s AND (a.valid_to IS NULL OR a.valid_to > %s)) "
            "ORDER BY ts_rank_cd(k.search, q.query, 1) DESC, k.key_id LIMIT %s"
        )
        with self._read(tenant) as cur:
            rows = cur.execute(sql, (*terms, tenant, *known, Micros(at), Micros(at), limit)).fetchall()
        return [(str(r[0]), str(r[1])) for r in rows]

    def episodes_without_vectors(self, tenant: str, model: str, limit: int) -> list[EpisodeRow]:
        with self._read(tenant) as cur:
            rows = cur.execute(
                f"SELECT {EPISODE_COLUMNS} FROM episodes e WHERE e.tenant = %s AND NOT EXISTS "
                "(SELECT 1 FROM episode_vectors v WHERE v.tenant = e.tenant AND v.episode_id = e.episode_id "
                "AND v.model = %s) ORDER BY e.seq LIMIT %s",
                (tenant, model, limit),
            ).fetchall()
        return [EpisodeRow(*row) for row in rows]

    def assertions_without_vectors(self, tenant: str, model: str, limit: int) -> list[tuple[int, str]]:
        with self._read(tenant) as cur:
            rows = cur.execute(
                "SELECT a.row_id, a.subject, a.attribute, a.value FROM assertions a "
                "WHERE a.tenant = %s AND a.recorded_to IS NULL AND NOT EXISTS "
                "(SELECT 1 FROM assertion_vectors v WHERE v.tenant = a.tenant AND v.row_id = a.row_id "
                "AND v.model = %s) ORDER BY a.row_id LIMIT %s",
                (tenant, model, limit),
            ).fetchall()
        return [(int(r[0]), fact_text(r[1], r[2], r[3])) for r in rows]

    def put_assertion_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]
    ) -> None:
        cur = cast("PostgresWrite", txn)._cur
        for dims, group in _by_dimension(dict(items)).items():
            self._ensure_index(cur, dims)
            keys = list(group)
            cur.execute(
                "INSERT INTO assertion_vectors (tenant, row_id, model, dims, embedding) "
                f"SELECT a.tenant, a.row_id, %s, {dims}, "
                f"((%s::float8[])[(i.n - 1) * {dims} + 1 : i.n * {dims}])::vector "
                "FROM unnest(%s::bigint[]) WITH ORDINALITY AS i(id, n) "
                "JOIN assertions a ON a.tenant = %s AND a.row_id = i.id "
                "ON CONFLICT (tenant, row_id, model) DO UPDATE "
                "SET dims = excluded.dims, embedding = excluded.embedding",
                (model, [x for key in keys for x in _floats(group[key])], keys, txn.tenant),
            )

    def vector_keys(
        self, tenant: str, model: str, vector: npt.NDArray[np.float32], at: int, limit: int,
        known_at: int | None = None,
    ) -> list[tuple[str, str, float]]:
        dims = _dimension(vector)
        distance = f"v.embedding::vector({dims}) <=> %s::float8[]::vector({dims})"
        visible, known = _visible(known_at)
        sql = (
            f"SELECT a.subject, a.attribute, 1 - ({distance}) FROM assertion_vectors v "
            "JOIN assertions a ON a.tenant = v.tenant AND a.row_id = v.row_id "
            f"WHERE v.tenant = %s AND v.model = %s AND v.dims = {dims} AND {visible} "
            "AND a.valid_from <= %s AND (a.valid_to IS NULL OR a.valid_to > %s) "
            f"ORDER BY {distance} LIMIT %s"
        )
        floats = _floats(vector)
        with self._read(tenant) as cur:
            _hnsw_settings(cur, limit)
            rows = cur.execute(
                sql, (floats, tenant, model, *known, Micros(at), Micros(at), floats, limit)
            ).fetchall()
        return [(str(r[0]), str(r[1]), float(r[2])) for r in rows]


def _by_dimension(
    items: dict[Any, npt.NDArray[np.float32]],
) -> dict[int, dict[Any, npt.NDArray[np.float32]]]:
    """Vectors grouped by length: each group is one INSERT slicing one flat array."""
    groups: dict[int, dict[Any, npt.NDArray[np.float32]]] = {}
    for key, vector in items.items():
        groups.setdefault(_dimension(np.asarray(vector)), {})[key] = vector
    return groups
