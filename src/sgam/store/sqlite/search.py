"""SQLite search: FTS5 partitions of each tenant (exact at every commit, ``fulltext``) and
brute-force cosine over vectors kept in a table, cached in process per tenant and
reloaded when the tenant's generation moves.

Why brute force: the stdlib ``sqlite3`` cannot load sqlite-vec, and an exact scan of
100k x 256 float32 takes ~10 ms with numpy while needing no second index whose deletions
could drift from the ledger (see docs/recall.md for the measurements). Large tenants are
scanned in two passes: the leading dimensions of every vector pick candidates, which are
then ranked exactly (``store/_vectors.py``).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._records import EpisodeRow
from .._requests import SearchFilter
from .._rows import EPISODE_COLUMNS
from .._sql.embedders import PortableEmbedders
from .._sql.search import assertions_without_vectors, filter_sql, holding
from .._vectors import VectorCache, appended, nearest, time_mask
from ..contract import Reader, WriteTransaction
from ..contract.search import CandidateEpisodes, KeywordQuery, StoredEpisode, VectorQuery, one_by_one
from .errors import map_sqlite_errors
from .file import SQLiteFile
from .fts import fts_query
from .fulltext import EPISODES, KEYS, layout, tables
from .session import SQLiteSession

_CHUNK = 500

class SQLiteSearch(PortableEmbedders):
    """``SearchIndex`` over a ``SQLiteBackend``'s connection (same lock, same file). A
    reader holds that lock and its read transaction, so the statements of a search run
    in the caller's snapshot; taking the (re-entrant) lock again here costs nothing."""

    def __init__(self, backend: SQLiteFile) -> None:
        self._backend = backend
        self._caches: dict[tuple[str, str], VectorCache] = {}
        self._cache_lock = threading.Lock()
        self._session = SQLiteSession(backend._conn)

    def _conn(self) -> sqlite3.Connection:
        return self._backend._conn

    def forget_copies(self, tenant: str, keep: Collection[str]) -> None:
        with self._cache_lock:
            for key in [key for key in self._caches if key[0] == tenant and key[1] not in keep]:
                del self._caches[key]

    def put_episode_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[str, npt.NDArray[np.float32]]]
    ) -> None:
        self._conn().executemany(
            "INSERT OR REPLACE INTO episode_vectors (seq, tenant, model, vector) "
            "SELECT seq, tenant, ?, ? FROM episodes WHERE tenant = ? AND episode_id = ?",
            [(model, np.asarray(vector, dtype=np.float16).tobytes(), txn.tenant, episode_id)
             for episode_id, vector in items],
        )

    def keyword_episodes(self, reader: Reader, terms: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """BM25 within each full-text partition that holds the tenant's rows, the best
        ``limit`` of each merged by score (ties by row). A large tenant's own partitions
        hold its rows only: without a filter no match is joined to its episode row (at
        100k episodes that join was half of the query). Matches in a shared partition are
        joined and filtered by tenant. Scores are the partition's own (its term
        statistics), as they were the whole file's before there were partitions."""
        if not terms:
            return []
        query = fts_query(terms)
        where, params = filter_sql(flt, self._session)
        found: list[tuple[float, int]] = []
        with self._backend._lock, map_sqlite_errors(self._backend.path):
            conn = self._conn()
            for table, own in tables(conn, EPISODES, reader.tenant):
                if where or not own:
                    sql = (f"SELECT e.seq, bm25({table}, 0.3, 1.0) AS score FROM {table} "
                           f"JOIN episodes e ON e.seq = {table}.rowid WHERE {table} MATCH ? AND +e.tenant = ?{where} "
                           "ORDER BY score, e.seq LIMIT ?")
                    bound: tuple[Any, ...] = (query, reader.tenant, *params, limit)
                else:
                    sql = (f"SELECT rowid, bm25({table}, 0.3, 1.0) AS score FROM {table} WHERE {table} MATCH ? "
                           "ORDER BY score, rowid LIMIT ?")
                    bound = (query, limit)
                found += [(float(row[1]), int(row[0])) for row in conn.execute(sql, bound)]
        return [seq for _, seq in sorted(found)[:limit]]

    def vector_episodes(
        self, reader: Reader, model: str, vector: npt.NDArray[np.float32], flt: SearchFilter, limit: int
    ) -> list[int]:
        tenant = reader.tenant
        with self._backend._lock, map_sqlite_errors(self._backend.path):
            cache = self._refresh(tenant, model)
            allowed = self._allowed_keys(tenant, flt)
        mask = time_mask(cache, flt)
        if allowed is not None:
            mask = np.ones(len(cache.keys), dtype=bool) if mask is None else mask
            mask &= np.isin(cache.keys, np.fromiter(allowed, dtype=np.int64, count=len(allowed)))
        return nearest(cache, vector, mask, limit)

    def _allowed_keys(self, tenant: str, flt: SearchFilter) -> set[int] | None:
        if (flt.session is None and flt.speaker is None and flt.subject is None and flt.memory_type is None
                and flt.known_at is None):
            return None
        where, params = filter_sql(SearchFilter(session=flt.session, speaker=flt.speaker, subject=flt.subject,
                                                memory_type=flt.memory_type, known_at=flt.known_at), self._session)
        rows = self._conn().execute(f"SELECT e.seq FROM episodes e WHERE e.tenant = ?{where}", (tenant, *params))
        return {int(row[0]) for row in rows}

    def _refresh(self, tenant: str, model: str) -> VectorCache:
        """Reload the tenant's vectors if anything changed since the cache was filled:
        appended rows are added; any deletion reloads the whole tenant."""
        conn = self._conn()
        row = conn.execute("SELECT generation FROM search_generation WHERE tenant = ?", (tenant,)).fetchone()
        generation = int(row[0]) if row else 0
        with self._cache_lock:
            cache = self._caches.setdefault((tenant, model), VectorCache())
            if cache.generation == generation:
                return cache
            last = int(cache.keys[-1]) if len(cache.keys) else 0
            fresh = self._load(tenant, model, last)
            count = conn.execute(
                "SELECT count(*) FROM episode_vectors WHERE tenant = ? AND model = ?", (tenant, model)
            ).fetchone()[0]
            if len(cache.keys) + len(fresh[0]) != count:
                cache = VectorCache()
                fresh = self._load(tenant, model, 0)
            keys, times, matrix = fresh
            prefix = None
            if len(cache.keys):
                keys = np.concatenate([cache.keys, keys])
                times = np.concatenate([cache.times, times])
                prefix = appended(cache.prefix, matrix)
                matrix = np.vstack([cache.matrix, matrix]) if len(matrix) else cache.matrix
            cache = VectorCache(generation, keys, times, matrix, prefix)
            self._caches[(tenant, model)] = cache
            return cache

    def _load(self, tenant: str, model: str, after: int) -> tuple[
        npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float32]
    ]:
        rows = self._conn().execute(
            "SELECT v.seq, e.occurred_at, v.vector FROM episode_vectors v JOIN episodes e ON e.seq = v.seq "
            "WHERE v.tenant = ? AND v.model = ? AND v.seq > ? ORDER BY v.seq",
            (tenant, model, after),
        ).fetchall()
        keys = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        times = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        if not rows:
            return keys, times, np.zeros((0, 0), dtype=np.float32)
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float16).reshape(len(rows), -1)
        return keys, times, matrix.astype(np.float32)

    def episodes_by_key(self, reader: Reader, keys: Sequence[int]) -> dict[int, StoredEpisode]:
        tenant = reader.tenant
        found: dict[int, StoredEpisode] = {}
        unique = list(dict.fromkeys(keys))
        with self._backend._lock, map_sqlite_errors(self._backend.path):
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start:start + _CHUNK]
                rows = self._conn().execute(
                    f"SELECT seq, {EPISODE_COLUMNS} FROM episodes WHERE +tenant = ? "
                    f"AND seq IN ({', '.join('?' * len(chunk))})",
                    (tenant, *chunk),
                ).fetchall()
                for row in rows:
                    found[int(row[0])] = StoredEpisode(int(row[0]), EpisodeRow(*row[1:]))
        return found

    def episodes_holding(self, reader: Reader, terms: Sequence[str], keys: Sequence[int]) -> dict[int, bool]:
        """Two full-text matches (any term, then every term among those) per partition and
        chunk of keys, each filtered by rowid after matching (the ``+``): handed to FTS5 as
        a rowid constraint, the match was evaluated again for every key (44 ms for 200 keys
        of one conversation, against 0.8 ms)."""
        unique = list(dict.fromkeys(keys))
        if not terms or not unique:
            return {}
        found: dict[int, bool] = {}
        with self._backend._lock, map_sqlite_errors(self._backend.path):
            conn = self._conn()
            plan = layout(conn, EPISODES, reader.tenant)
            by_table: dict[str, list[int]] = {}
            for key in unique:
                part = plan.holder(key)
                if part is not None:
                    by_table.setdefault(EPISODES.table(part.part), []).append(key)
            own = {EPISODES.table(part.part) for part in plan.own}
            for table, part_keys in by_table.items():
                tenant = None if table in own else reader.tenant
                for start in range(0, len(part_keys), _CHUNK):
                    sharing = self._matching(table, tenant, fts_query(terms), part_keys[start:start + _CHUNK])
                    holding = set(self._matching(table, tenant, fts_query(terms, every=True), sharing)
                                  if len(terms) > 1 else sharing)
                    found.update((key, key in holding) for key in sharing)
        return found

    def _matching(self, table: str, tenant: str | None, query: str, keys: Sequence[int]) -> list[int]:
        """The keys whose rows of ``table`` match; of ``tenant``'s episodes only, for a
        partition that other tenants share."""
        if not keys:
            return []
        marks = ", ".join("?" * len(keys))
        if tenant is None:
            sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND +rowid IN ({marks})"
            params: tuple[Any, ...] = (query, *keys)
        else:
            sql = (f"SELECT e.seq FROM {table} JOIN episodes e ON e.seq = {table}.rowid "
                   f"WHERE {table} MATCH ? AND +{table}.rowid IN ({marks}) AND +e.tenant = ?")
            params = (query, *keys, tenant)
        return [int(row[0]) for row in self._conn().execute(sql, params).fetchall()]

    def candidate_episodes(
        self, reader: Reader, flt: SearchFilter, keyword: KeywordQuery | None, vector: VectorQuery | None,
    ) -> CandidateEpisodes:
        """One after the other: every read holds the connection's lock anyway."""
        return one_by_one(self, reader, flt, keyword, vector)

    def matching_keys(
        self, reader: Reader, terms: Sequence[str], at: int, limit: int, known_at: int | None = None
    ) -> list[tuple[str, str]]:
        """The tenant's keys whose words match, best first (BM25 within each key partition
        that holds the tenant's keys, merged by score), among those that hold at ``at``."""
        tenant = reader.tenant
        if not terms:
            return []
        holds, held = holding(tenant, known_at, at, self._session)
        hint = "" if known_at is not None else "INDEXED BY assertions_current "
        exists = (f"EXISTS (SELECT 1 FROM assertions a {hint}"
                  f"WHERE a.tenant = k.tenant AND a.subject = k.subject AND a.attribute = k.attribute AND {holds})")
        query = fts_query(terms)
        found: list[tuple[float, int, str, str]] = []
        with self._backend._lock, map_sqlite_errors(self._backend.path):
            conn = self._conn()
            for table, _ in tables(conn, KEYS, tenant):
                found += [(float(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in conn.execute(
                    f"SELECT bm25({table}) AS score, k.key_id, k.subject, k.attribute FROM {table} JOIN ledger_keys k "
                    f"ON k.key_id = {table}.rowid WHERE {table} MATCH ? AND +k.tenant = ? AND {exists} "
                    "ORDER BY score LIMIT ?", (query, tenant, *held, limit * 4))]
        ranked = sorted(found)[:limit * 4]
        return list(dict.fromkeys((subject, attribute) for _, _, subject, attribute in ranked))[:limit]

    def episodes_without_vectors(self, reader: Reader, model: str, limit: int, after: int = 0) -> list[StoredEpisode]:
        tenant = reader.tenant
        with self._backend._lock, map_sqlite_errors(self._backend.path):
            rows = self._conn().execute(
                f"SELECT e.seq, {EPISODE_COLUMNS} FROM episodes e WHERE e.tenant = ? AND e.seq > ? AND NOT EXISTS "
                "(SELECT 1 FROM episode_vectors v WHERE v.seq = e.seq AND v.model = ?) ORDER BY e.seq LIMIT ?",
                (tenant, after, model, limit),
            ).fetchall()
        return [StoredEpisode(int(row[0]), EpisodeRow(*row[1:])) for row in rows]

    def assertions_without_vectors(self, reader: Reader, model: str, limit: int) -> list[tuple[int, str]]:
        tenant = reader.tenant
        with self._backend._lock, map_sqlite_errors(self._backend.path):
            return assertions_without_vectors(self._session, tenant, model, limit)

    def put_assertion_vectors(
        self, txn: WriteTransaction, model: str, items: Sequence[tuple[int, npt.NDArray[np.float32]]]
    ) -> None:
        self._conn().executemany(
            "INSERT OR REPLACE INTO assertion_vectors (row_id, tenant, model, vector) "
            "SELECT row_id, tenant, ?, ? FROM assertions WHERE row_id = ? AND tenant = ?",
            [(model, np.asarray(vector, dtype=np.float16).tobytes(), key, txn.tenant) for key, vector in items],
        )

    def vector_keys(
        self, reader: Reader, model: str, vector: npt.NDArray[np.float32], at: int, limit: int,
        known_at: int | None = None,
    ) -> list[tuple[str, str, float]]:
        """A scan of the tenant's facts as they stood at ``known_at``: facts are far fewer
        than episodes."""
        tenant = reader.tenant
        holds, held = holding(tenant, known_at, at, self._session)
        with self._backend._lock, map_sqlite_errors(self._backend.path):
            rows = self._conn().execute(
                "SELECT a.subject, a.attribute, v.vector FROM assertion_vectors v "
                f"JOIN assertions a ON a.row_id = v.row_id WHERE v.tenant = ? AND v.model = ? AND {holds}",
                (tenant, model, *held),
            ).fetchall()
        if not rows:
            return []
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float16).reshape(len(rows), -1)
        if matrix.shape[1] != vector.shape[0]:
            return []
        scores = matrix.astype(np.float32) @ vector
        order = np.argsort(-scores, kind="stable")[:limit]
        return [(str(rows[i][0]), str(rows[i][1]), float(scores[i])) for i in order]
