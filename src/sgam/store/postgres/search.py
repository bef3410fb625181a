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
from .._search import SearchFilter, StoredEpisode
from .._sql.search import assertions_without_vectors, filter_sql, holding
from .adapters import Floats, micros
from .session import PostgresSession

if TYPE_CHECKING:  # the backend imports this module when asked for its index
    from .backend import PostgresBackend
    from .write import PostgresWrite

HNSW_MAX_DIMENSIONS = 2000
"""pgvector's HNSW limit for ``vector``; larger vectors are still searched, exactly."""



def _tsquery(terms: Sequence[str]) -> str:
    """Any of the terms, OR-ed: each term a bound parameter of ``plainto_tsquery``, so
    tsquery syntax in user text is never interpreted."""
    return "(SELECT " + " || ".join("plainto_tsquery('english', ?)" for _ in terms) + ")"


_KEYS_SHARING_A_LEXEME = (
    "SELECT DISTINCT t.key_id FROM ledger_key_terms t WHERE t.tenant = ? AND t.lexeme = ANY(ARRAY(SELECT l.lexeme "
    "FROM unnest(?::text[]) AS w(term), unnest(tsvector_to_array(to_tsvector('english', w.term))) AS l(lexeme)))"
)
"""Keys with a lexeme of some term (migration 12): text equality is leakproof, so under
RLS this is an index range of ``ledger_key_terms``, and every key matching ``@@`` is
among them. ``matching_keys`` reads each by primary key, ranks them, then probes their
versions in rank order until it has ``limit``. The ``OFFSET 0`` and ``LIMIT 1`` fences
keep that shape: the planner cannot estimate ``= ANY`` of a computed array, guesses
hundreds of keys, and would otherwise scan every key and every version of the tenant."""


def _dimension(vector: npt.NDArray[np.float32]) -> int:
    if vector.ndim != 1 or vector.shape[0] < 1:
        raise ValidationError("vector", f"shape {vector.shape}", "must be one non-empty row")
    return int(vector.shape[0])


def _hnsw_settings(db: PostgresSession, limit: int) -> None:
    """Let the HNSW scan go on past filtered-out rows (other tenants, models, times) in
    exact distance order; search at least as wide as the result."""
    db.run("SELECT set_config('hnsw.iterative_scan', 'strict_order', true), set_config('hnsw.ef_search', ?, true)",
           (str(min(1000, max(40, limit))),))


def _put_vectors(txn: WriteTransaction, table: str, key: str, rows: str, model: str,
                 items: dict[Any, npt.NDArray[np.float32]]) -> None:
    """Insert or replace vectors of ``model`` into ``table`` (named with its columns up to
    the model's, which ``rows`` selects from ``e`` or ``a`` joined on ``key = i.id``): one
    statement per dimension slicing one flat binary ``real[]``, after making sure the dimension has
    its HNSW index (an owner-run function; a catalog lookup once the index exists, asked
    every time because the transaction that created it may roll back)."""
    db = cast("PostgresWrite", txn)._db
    for dims, group in _by_dimension(items).items():
        if dims <= HNSW_MAX_DIMENSIONS:
            db.run("SELECT sgam_vector_index(?::integer)", (dims,))
        ids = list(group)
        db.run(
            f"INSERT INTO {table} SELECT {rows}, ?, {dims}, "
            f"((?::real[])[(i.n - 1) * {dims} + 1 : i.n * {dims}])::vector "
            f"FROM unnest(?::{'text' if key == 'episode_id' else 'bigint'}[]) WITH ORDINALITY AS i(id, n) "
            f"JOIN {'episodes e' if key == 'episode_id' else 'assertions a'} ON tenant = ? AND {key} = i.id "
            f"ON CONFLICT (tenant, {key}, model) DO UPDATE SET dims = excluded.dims, embedding = excluded.embedding",
            (model, Floats([group[k] for k in ids]), ids, txn.tenant),
        )


class PostgresSearchIndex:
    """``SearchIndex`` over a ``PostgresBackend``: its pool, its tenant-scoped transactions."""

    def __init__(self, backend: PostgresBackend) -> None:
        self._backend = backend

    @contextmanager
    def _read(self, tenant: str) -> Iterator[PostgresSession]:
        with self._backend.read(tenant) as reader:
            yield PostgresSession(reader._cur)

    def put_episode_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[str, npt.NDArray[np.float32]]]
    ) -> None:
        _put_vectors(txn, "episode_vectors (tenant, episode_id, seq, occurred_at, recorded_at, session, speaker, "
                     "model, dims, embedding)", "episode_id",
                     "e.tenant, e.episode_id, e.seq, e.occurred_at, e.recorded_at, e.session, e.speaker", model,
                     dict(items))

    def put_assertion_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]
    ) -> None:
        _put_vectors(txn, "assertion_vectors (tenant, row_id, model, dims, embedding)", "row_id",
                     "a.tenant, a.row_id", model, dict(items))

    def keyword_episodes(self, tenant: str, terms: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """BM25-like: each term's ``ts_rank`` (saturating in its frequency, divided by the
        log of the length) weighted by its inverse document frequency in this tenant.
        ts_rank alone has no IDF, and on LoCoMo that cost a fifth of BM25's recall. The
        query runs in ``sgam_keyword_episodes`` (migration 6), where the GIN index can
        serve it; it reads the tenant this transaction set."""
        if not terms:
            return []
        with self._read(tenant) as db:
            ranked = db.rows(
                "SELECT s FROM sgam_keyword_episodes(?::text[], ?::integer, ?, ?, ?, ?, ?, ?, ?) AS s",
                (list(terms), limit, micros(flt.since), micros(flt.until), flt.session, flt.speaker,
                 flt.subject, flt.memory_type, micros(flt.known_at)),
            )
        return [int(row[0]) for row in ranked]

    def vector_episodes(
        self, tenant: str, model: str, vector: npt.NDArray[np.float32], flt: SearchFilter, limit: int
    ) -> list[int]:
        dims = _dimension(vector)
        with self._read(tenant) as db:
            where, params = filter_sql(flt, db, "v")  # the vector row holds its episode's filter columns
            _hnsw_settings(db, limit)
            nearest = db.rows(
                "SELECT v.seq FROM episode_vectors v "
                f"WHERE v.tenant = ? AND v.model = ? AND v.dims = {dims}{where} "
                f"ORDER BY v.embedding::vector({dims}) <=> ?::real[]::vector({dims}) LIMIT ?",
                (tenant, model, *params, Floats(vector), limit),
            )
        return [int(row[0]) for row in nearest]

    def episodes_by_key(self, tenant: str, keys: Sequence[int]) -> dict[int, StoredEpisode]:
        if not keys:
            return {}
        with self._read(tenant) as db:
            found = db.rows(f"SELECT seq, {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND seq = ANY(?::bigint[])",
                            (tenant, list(dict.fromkeys(int(key) for key in keys))))
        return {int(row[0]): StoredEpisode(int(row[0]), EpisodeRow(*row[1:])) for row in found}

    def matching_keys(
        self, tenant: str, terms: Sequence[str], at: int, limit: int, known_at: int | None = None
    ) -> list[tuple[str, str]]:
        if not terms:
            return []
        with self._read(tenant) as db:
            holds, held = holding(known_at, at, db)
            matched = db.rows(
                "SELECT r.subject, r.attribute FROM (SELECT k.key_id, k.subject, k.attribute, "
                f"ts_rank_cd(k.search, q.query, 1) AS rank FROM ({_KEYS_SHARING_A_LEXEME}) AS c, "
                f"{_tsquery(terms)} AS q(query), LATERAL (SELECT k.key_id, k.subject, k.attribute, k.search "
                "FROM ledger_keys k WHERE k.tenant = ? AND k.key_id = c.key_id OFFSET 0) AS k "
                "WHERE k.search @@ q.query ORDER BY rank DESC, k.key_id OFFSET 0) AS r, "
                "LATERAL (SELECT 1 FROM assertions a WHERE a.tenant = ? AND a.subject = r.subject "
                f"AND a.attribute = r.attribute AND {holds} LIMIT 1) AS v "
                "ORDER BY r.rank DESC, r.key_id LIMIT ?",
                (tenant, list(terms), *terms, tenant, tenant, *held, limit),
            )
        return [(str(r[0]), str(r[1])) for r in matched]

    def episodes_without_vectors(self, tenant: str, model: str, limit: int) -> list[EpisodeRow]:
        with self._read(tenant) as db:
            missing = db.rows(
                f"SELECT {EPISODE_COLUMNS} FROM episodes e WHERE e.tenant = ? AND NOT EXISTS "
                "(SELECT 1 FROM episode_vectors v WHERE v.tenant = e.tenant AND v.episode_id = e.episode_id "
                "AND v.model = ?) ORDER BY e.seq LIMIT ?",
                (tenant, model, limit),
            )
        return [EpisodeRow(*row) for row in missing]

    def assertions_without_vectors(self, tenant: str, model: str, limit: int) -> list[tuple[int, str]]:
        with self._read(tenant) as db:
            return assertions_without_vectors(db, tenant, model, limit)

    def vector_keys(
        self, tenant: str, model: str, vector: npt.NDArray[np.float32], at: int, limit: int,
        known_at: int | None = None,
    ) -> list[tuple[str, str, float]]:
        dims = _dimension(vector)
        distance = f"v.embedding::vector({dims}) <=> ?::real[]::vector({dims})"
        floats = Floats(vector)
        with self._read(tenant) as db:
            holds, held = holding(known_at, at, db)
            _hnsw_settings(db, limit)
            nearest = db.rows(
                f"SELECT a.subject, a.attribute, 1 - ({distance}) FROM assertion_vectors v "
                "JOIN assertions a ON a.tenant = v.tenant AND a.row_id = v.row_id "
                f"WHERE v.tenant = ? AND v.model = ? AND v.dims = {dims} AND {holds} "
                f"ORDER BY {distance} LIMIT ?",
                (floats, tenant, model, *held, floats, limit),
            )
        return [(str(r[0]), str(r[1]), float(r[2])) for r in nearest]


def _by_dimension(
    items: dict[Any, npt.NDArray[np.float32]],
) -> dict[int, dict[Any, npt.NDArray[np.float32]]]:
    """Vectors grouped by length: each group is one INSERT slicing one flat array."""
    groups: dict[int, dict[Any, npt.NDArray[np.float32]]] = {}
    for key, vector in items.items():
        groups.setdefault(_dimension(np.asarray(vector)), {})[key] = vector
    return groups
