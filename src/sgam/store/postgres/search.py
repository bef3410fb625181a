"""PostgreSQL search: generated ``tsvector`` columns with GIN indexes, and pgvector with an
HNSW index per dimension, or without one, episode vectors ranked in process from a copy
the vector tally proves current in the search's snapshot (``vectors.py``).

Every read runs in the backend's tenant-scoped transaction, so row-level security binds
it; every index entry of an erased row is deleted by ``ON DELETE CASCADE`` (vectors) or a
trigger (ledger keys) in the erasing transaction, and the copies only rank keys whose
rows are read in that snapshot. See docs/recall.md ("PostgreSQL").
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from ..._core.errors import ValidationError
from .._records import EpisodeRow
from .._requests import KeywordEpisodes, MatchingKeys, SearchFilter, VectorTally
from .._rows import EPISODE_COLUMNS
from .._sql.embedders import PortableEmbedders, scope
from .._sql.search import assertions_without_vectors, filter_sql, holding
from .._vectors import nearest, time_mask
from ..contract import Reader, WriteTransaction
from ..contract.search import CandidateEpisodes, KeywordQuery, StoredEpisode, VectorQuery
from .adapters import Floats, micros, query_vector
from .session import Answered, Cursor, PostgresSession
from .vectors import TALLY, EpisodeVectors

VECTORS_IN_PROCESS = True
"""Rank a tenant's episode vectors in process when the copy matches the read's snapshot
(``vectors.py``); False sends every vector search to the server (as tests of the
server's statements do)."""
HNSW_MAX_DIMENSIONS = 2000
"""pgvector's HNSW limit for ``vector``; larger vectors are still searched, exactly."""

HEADS_FROM_EPISODES = 20_000
"""From this many episodes in a tenant, an episode vector search without an HNSW index
ranks the vectors' heads first; below it one exact scan is as cheap."""
HEAD_MIN_DIMENSIONS = 64
"""Vectors shorter than this have no head: their exact scan is already narrow."""
HEAD_CANDIDATES = 1_000
"""Candidates ranked exactly after the heads pass (at least 20 per result asked)."""
HEADS_RECHECK_SECONDS = 60.0
"""How long a search index trusts its reading of whether a tenant is large."""
HEADS_REMEMBERED = 4_096
"""Readings kept per search index (one per tenant and dimension searched)."""
def head_dimensions(dims: int) -> int | None:
    """The head of a vector: the first three eighths of its unit-length copy (as the
    heads trigger cuts it); None below ``HEAD_MIN_DIMENSIONS``."""
    return dims * 3 // 8 if dims >= HEAD_MIN_DIMENSIONS else None



def _tsquery(terms: Sequence[str], *, every: bool = False) -> str:
    """Any of the terms, OR-ed (each of them, AND-ed, with ``every``): each term a bound
    parameter of ``plainto_tsquery``, so tsquery syntax in user text is never interpreted."""
    return "(SELECT " + (" && " if every else " || ").join("plainto_tsquery('english', ?)" for _ in terms) + ")"


_KEYS_SHARING_A_LEXEME = (
    "SELECT DISTINCT t.key_id FROM ledger_key_terms t WHERE t.tenant = ? AND t.lexeme = ANY(ARRAY(SELECT l.lexeme "
    "FROM unnest(?::text[]) AS w(term), unnest(tsvector_to_array(to_tsvector('english', w.term))) AS l(lexeme)))"
)
"""Keys with a lexeme of some term: text equality is leakproof, so under
RLS this is an index range of ``ledger_key_terms``, and every key matching ``@@`` is
among them. ``matching_keys`` reads each by primary key, ranks them, then probes their
versions in rank order until it has ``limit``. The ``OFFSET 0`` and ``LIMIT 1`` fences
keep that shape: the planner cannot estimate ``= ANY`` of a computed array, guesses
hundreds of keys, and would otherwise scan every key and every version of the tenant."""


_KEYWORD = "sgam_keyword_episodes(?::text[], ?::integer, ?, ?, ?, ?, ?, ?, ?)"
"""The ranked keyword matches with their rows: read alone in a statement, never joined
with a table (on Citus a function beside a distributed table is sent to a worker, where
its own statements could not be distributed)."""
_ROWS_OF_R = (f"LEFT JOIN LATERAL (SELECT {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND seq = r.seq "
              "OFFSET 0) AS e ON TRUE ORDER BY r.n")
"""Each ranked key ``r.seq`` (in rank order ``r.n``) with its episode's row. The ``OFFSET
0`` keeps the row lookup a subquery the planner cannot merge into the join: merged, it
guessed a function's thousand rows and hashed every episode of the tenant (50 ms at
10k); kept, it is one index probe per ranked key."""

_RankedRows = tuple[list[int], dict[int, StoredEpisode]]


def _keyword_params(terms: Sequence[str], flt: SearchFilter, limit: int) -> tuple[Any, ...]:
    return (list(terms), limit, micros(flt.since), micros(flt.until), flt.session, flt.speaker, flt.subject,
            flt.memory_type, micros(flt.known_at))


def _ranked_rows(found: Sequence[Sequence[Any]]) -> _RankedRows:
    """Keys in rank order, and the rows of those still stored (``tenant`` is never NULL)."""
    keys: list[int] = []
    rows: dict[int, StoredEpisode] = {}
    for row in found:
        key = int(row[0])
        keys.append(key)
        if row[1] is not None:
            rows[key] = StoredEpisode(key, EpisodeRow(*row[1:]))
    return keys, rows


def matching_keys_statement(
    session: PostgresSession, tenant: str, request: MatchingKeys,
) -> tuple[str, tuple[Any, ...]]:
    """The statement of ``PostgresSearchIndex.matching_keys`` (non-empty terms)."""
    terms = request.terms
    holds, held = holding(tenant, request.known_at, request.at, session)
    return (
        "SELECT r.subject, r.attribute FROM (SELECT k.key_id, k.subject, k.attribute, "
        f"ts_rank_cd(k.search, q.query, 1) AS rank FROM ({_KEYS_SHARING_A_LEXEME}) AS c, "
        f"{_tsquery(terms)} AS q(query), LATERAL (SELECT k.key_id, k.subject, k.attribute, k.search "
        "FROM ledger_keys k WHERE k.tenant = ? AND k.key_id = c.key_id OFFSET 0) AS k "
        "WHERE k.search @@ q.query ORDER BY rank DESC, k.key_id OFFSET 0) AS r, "
        "LATERAL (SELECT 1 FROM assertions a WHERE a.tenant = ? AND a.subject = r.subject "
        f"AND a.attribute = r.attribute AND {holds} LIMIT 1) AS v "
        "ORDER BY r.rank DESC, r.key_id LIMIT ?",
        (tenant, list(terms), *terms, tenant, tenant, *held, request.limit),
    )


def keyword_episodes_statement(tenant: str, request: KeywordEpisodes) -> tuple[str, tuple[Any, ...]]:
    """The statement of an evidence search's keyword candidates with their rows."""
    return (f"SELECT seq, {EPISODE_COLUMNS} FROM {_KEYWORD} WITH ORDINALITY AS r ORDER BY r.ordinality",
            _keyword_params(request.terms, request.flt, request.limit))


def tally_statement(tenant: str, request: VectorTally) -> tuple[str, tuple[Any, ...]]:
    """The statement of the vector tally an evidence search checks its copy against."""
    return TALLY, (f"episode_vectors_hnsw_{request.dims}", tenant, request.model, request.dims)


def _send(reader: Reader, sql: str, params: tuple[Any, ...]) -> Cursor | Answered:
    """``sql`` sent in the caller's read on a cursor of its own (``PostgresSession.send``),
    answered with the read's next wait; its rows are taken from what this returns."""
    return PostgresSearchIndex._db(reader).send(sql, params)


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
    db = PostgresSearchIndex._db(txn)
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


MODEL_PROBE = "v.model || ''"
"""How "rows without a vector of a model" compare the vector's model: as an expression.
Compared as the column, with statistics from when the table was small, the planner
probed the vectors by (tenant, model) and filtered on the row: every episode scanned all
of the model's vectors (1.6 s a batch of 1,000 at 10,000 episodes, a re-embedding 28 s).
As an expression, the only index left is the primary key's: one probe a row (2.2 s)."""


class PostgresSearchIndex(PortableEmbedders):
    """``SearchIndex`` over a ``PostgresBackend``: its pool, its tenant-scoped transactions."""

    def __init__(self) -> None:
        self._heads: dict[tuple[str, int], tuple[bool, float]] = {}
        self._vectors = EpisodeVectors()

    ROW_LOCKS: ClassVar[dict[str, str]] = {"share": " FOR SHARE", "update": " FOR UPDATE"}
    """A write that stores vectors reads the tenant's embedders ``FOR SHARE``, a switch
    ``FOR UPDATE``: the switch waits for writers that read the old state, and writers
    that come after it read the new one (READ COMMITTED reads the row a lock waited for)."""

    def drop_vectors_except(self, handle: WriteTransaction, model: str) -> int:
        """The portable delete, then the vector tally's rows of the models that went: a
        tally row names its model, and nothing is left that names one."""
        dropped = super().drop_vectors_except(handle, model)
        db, tenant = scope(handle)
        db.run("DELETE FROM episode_vector_counts WHERE tenant = ? AND model <> ?", (tenant, model))
        return dropped

    def forget_copies(self, tenant: str, keep: Collection[str]) -> None:
        self._vectors.forget(tenant, keep)

    @staticmethod
    def _db(handle: Reader | WriteTransaction) -> PostgresSession:
        """The session of the caller's read (or unit of work): its connection, its tenant."""
        db = handle.session()
        assert isinstance(db, PostgresSession), "a read or unit of work of this backend"
        return db

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

    def keyword_episodes(self, reader: Reader, terms: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """BM25-like: each term's ``ts_rank`` (saturating in its frequency, divided by the
        log of the length) weighted by its inverse document frequency in this tenant.
        ts_rank alone has no IDF, and on LoCoMo that cost a fifth of BM25's recall. The
        query runs in ``sgam_keyword_episodes`` (the baseline), where the GIN index can
        serve it; it reads the tenant this transaction set."""
        if not terms:
            return []
        ranked = self._db(reader).rows(f"SELECT seq FROM {_KEYWORD}", _keyword_params(terms, flt, limit))
        return [int(row[0]) for row in ranked]

    def vector_episodes(
        self, reader: Reader, model: str, vector: npt.NDArray[np.float32], flt: SearchFilter, limit: int
    ) -> list[int]:
        """The ``limit`` nearest episodes by cosine distance: ranked in process from the
        tenant's vectors copied there (``vectors.py``) when the copy matches the read's
        snapshot and the filter is on times alone; else by the server, exactly or through
        pgvector's HNSW where the dimension has an index, and in a tenant of
        ``HEADS_FROM_EPISODES`` or more without one, the exact ranking of the candidates
        a pass over the vectors' heads found."""
        query = VectorQuery(model, vector, limit)
        ranked = self._in_process(reader, flt, query, self._tally(reader, flt, query))
        if ranked is not None:
            return ranked
        db = self._db(reader)
        nearest_keys = db.rows(*self._nearest(db, reader.tenant, query, flt))
        return [int(row[0]) for row in nearest_keys]

    def _tally(self, reader: Reader, flt: SearchFilter, query: VectorQuery) -> tuple[Any, ...] | None:
        """The vector tally of the query's model and dimension in the read's snapshot, or
        None when the filter needs the server (sessions, speakers, sources)."""
        if not VECTORS_IN_PROCESS or not flt.on_times_only:
            return None
        request = VectorTally(query.model, _dimension(query.vector))
        found = self._db(reader).answer(request, *tally_statement(reader.tenant, request))
        return found[0] if found else None

    def _in_process(self, reader: Reader, flt: SearchFilter, query: VectorQuery,
                    tally: tuple[Any, ...] | None) -> list[int] | None:
        """The nearest keys ranked from the process's copy, or None (the server ranks)."""
        if tally is None:
            return None
        dims = _dimension(query.vector)
        cache = self._vectors.current(self._db(reader), reader.tenant, query.model, dims, tally)
        if cache is None:
            return None
        return nearest(cache, query.vector, time_mask(cache, flt), query.limit)

    def _send_vector_rows(self, reader: Reader, flt: SearchFilter, query: VectorQuery,
                          tally: tuple[Any, ...] | None) -> Cursor | Answered:
        """The statement of ``_vector_rows``, sent (its rows taken by the caller)."""
        ranked = self._in_process(reader, flt, query, tally)
        if ranked is not None:
            return _send(reader, f"SELECT r.seq, e.* FROM unnest(?::bigint[]) WITH ORDINALITY AS r(seq, n) "
                         f"{_ROWS_OF_R}", (ranked, reader.tenant))
        db = self._db(reader)
        sql, params = self._nearest(db, reader.tenant, query, flt)
        return _send(reader, f"SELECT r.seq, e.* FROM (SELECT c.seq, row_number() OVER () AS n FROM ({sql}) AS c) "
                     f"AS r {_ROWS_OF_R}", (*params, reader.tenant))

    def _nearest(self, db: PostgresSession, tenant: str, query: VectorQuery,
                 flt: SearchFilter) -> tuple[str, tuple[Any, ...]]:
        """The statement ranking episode keys (``seq``) by distance to the query's vector,
        after setting up the HNSW scan for it (see ``vector_episodes``)."""
        dims = _dimension(query.vector)
        floats = Floats(query.vector)
        distance = f"v.embedding::vector({dims}) <=> {query_vector(dims)}"
        where, params = filter_sql(flt, db, "v")  # the vector row holds its episode's filter columns
        _hnsw_settings(db, query.limit)
        head = self._head(db, tenant, dims)
        if head is None:
            return ("SELECT v.seq FROM episode_vectors v "
                    f"WHERE v.tenant = ? AND v.model = ? AND v.dims = {dims}{where} ORDER BY {distance} LIMIT ?",
                    (tenant, query.model, *params, floats, query.limit))
        head_where, head_params = filter_sql(flt, db, "h")
        return ("SELECT v.seq FROM (SELECT h.episode_id FROM episode_vector_heads h "
                f"WHERE h.tenant = ? AND h.model = ? AND h.dims = {dims}{head_where} "
                f"ORDER BY h.head <#> (SELECT subvector(l2_normalize(?::real[]::vector({dims})), 1, {head})"
                "::halfvec) LIMIT ?) AS c JOIN episode_vectors v ON v.tenant = ? AND v.episode_id = c.episode_id "
                f"AND v.model = ? ORDER BY {distance} LIMIT ?",
                (tenant, query.model, *head_params, floats, max(HEAD_CANDIDATES, 20 * query.limit), tenant,
                 query.model, floats, query.limit))

    def _head(self, db: PostgresSession, tenant: str, dims: int) -> int | None:
        """The head length to search ``dims``-dimension vectors of ``tenant`` by, or None
        for one exact scan: small tenants (the episode tally), short
        vectors and dimensions with an HNSW index. Remembered for ``HEADS_RECHECK_SECONDS``;
        a stale answer only picks the slower of two ways to the same ranking."""
        head = head_dimensions(dims)
        if head is None:
            return None
        known = self._heads.get((tenant, dims))
        now = time.monotonic()
        if known is None or known[1] < now:
            found = db.row(
                "SELECT (SELECT coalesce(sum(episodes), 0) FROM episode_counts WHERE tenant = ?) >= ? "
                "AND to_regclass(?) IS NULL", (tenant, HEADS_FROM_EPISODES, f"episode_vectors_hnsw_{dims}"))
            known = (found is not None and bool(found[0]), now + HEADS_RECHECK_SECONDS)
            if len(self._heads) >= HEADS_REMEMBERED:
                self._heads.clear()  # many tenants: forget them all rather than grow
            self._heads[(tenant, dims)] = known
        return head if known[0] else None

    def candidate_episodes(
        self, reader: Reader, flt: SearchFilter, keyword: KeywordQuery | None, vector: VectorQuery | None,
    ) -> CandidateEpisodes:
        """Both channels in the caller's read, so on its connection and in its snapshot,
        overlapped in its pipeline: the vector tally first (the server answers a pipeline
        in order, so it must not wait behind the keyword statement); then the keyword
        statement goes out, and while the server ranks by keyword, the process ranks its
        copy of the vectors (or, without one, sends the server's vector statement behind
        it); the rows of the vector ranking follow, and both answers come back together."""
        tally = None if vector is None else self._tally(reader, flt, vector)
        by_keyword = None
        if keyword is not None and keyword.terms:
            request = KeywordEpisodes(tuple(keyword.terms), keyword.limit, flt)
            by_keyword = self._db(reader).send_answer(request, *keyword_episodes_statement(reader.tenant, request))
        by_vector = None if vector is None else self._send_vector_rows(reader, flt, vector, tally)
        keys, rows = ([], {}) if by_keyword is None else _ranked_rows(by_keyword.fetchall())
        vector_keys, vector_rows = ([], {}) if by_vector is None else _ranked_rows(by_vector.fetchall())
        rows.update(vector_rows)
        return CandidateEpisodes(keys, vector_keys, rows)

    def episodes_by_key(self, reader: Reader, keys: Sequence[int]) -> dict[int, StoredEpisode]:
        if not keys:
            return {}
        found = self._db(reader).rows(
            f"SELECT seq, {EPISODE_COLUMNS} FROM episodes WHERE tenant = ? AND seq = ANY(?::bigint[])",
            (reader.tenant, list(dict.fromkeys(int(key) for key in keys))))
        return {int(row[0]): StoredEpisode(int(row[0]), EpisodeRow(*row[1:])) for row in found}

    def episodes_holding(self, reader: Reader, terms: Sequence[str], keys: Sequence[int]) -> dict[int, bool]:
        """One statement: the keys' rows by primary key, each tested against the terms'
        ``tsquery``, OR-ed and AND-ed."""
        unique = list(dict.fromkeys(int(key) for key in keys))
        if not terms or not unique:
            return {}
        found = self._db(reader).rows(
            "SELECT e.seq, e.search @@ b.query FROM episodes e, "
            f"{_tsquery(terms)} AS a(query), {_tsquery(terms, every=True)} AS b(query) "
            "WHERE e.tenant = ? AND e.seq = ANY(?::bigint[]) AND e.search @@ a.query",
            (*terms, *terms, reader.tenant, unique),
        )
        return {int(row[0]): bool(row[1]) for row in found}

    def matching_keys(
        self, reader: Reader, terms: Sequence[str], at: int, limit: int, known_at: int | None = None
    ) -> list[tuple[str, str]]:
        if not terms:
            return []
        db = self._db(reader)
        request = MatchingKeys(tuple(terms), at, limit, known_at)
        matched = db.answer(request, *matching_keys_statement(db, reader.tenant, request))
        return [(str(r[0]), str(r[1])) for r in matched]

    def episodes_without_vectors(self, reader: Reader, model: str, limit: int, after: int = 0) -> list[StoredEpisode]:
        missing = self._db(reader).rows(
            f"SELECT e.seq, {EPISODE_COLUMNS} FROM episodes e WHERE e.tenant = ? AND e.seq > ? AND NOT EXISTS "
            "(SELECT 1 FROM episode_vectors v WHERE v.tenant = e.tenant AND v.episode_id = e.episode_id "
            f"AND {MODEL_PROBE} = ?) ORDER BY e.seq LIMIT ?",
            (reader.tenant, after, model, limit),
        )
        return [StoredEpisode(int(row[0]), EpisodeRow(*row[1:])) for row in missing]

    def assertions_without_vectors(self, reader: Reader, model: str, limit: int) -> list[tuple[int, str]]:
        return assertions_without_vectors(self._db(reader), reader.tenant, model, limit, MODEL_PROBE)

    def vector_keys(
        self, reader: Reader, model: str, vector: npt.NDArray[np.float32], at: int, limit: int,
        known_at: int | None = None,
    ) -> list[tuple[str, str, float]]:
        dims = _dimension(vector)
        distance = f"v.embedding::vector({dims}) <=> {query_vector(dims)}"
        floats = Floats(vector)
        db = self._db(reader)
        holds, held = holding(reader.tenant, known_at, at, db)
        _hnsw_settings(db, limit)
        # Each vector's version is one probe of the primary key (``OFFSET 0`` keeps the
        # subquery whole): joined plainly, a table without statistics (bulk-loaded, not yet
        # analysed) was read by the tenant's range for every vector (10,000 facts: 17 s).
        nearest = db.rows(
            f"SELECT a.subject, a.attribute, 1 - ({distance}) FROM assertion_vectors v "
            f"CROSS JOIN LATERAL (SELECT {_HELD_COLUMNS} FROM assertions a "
            "WHERE a.tenant = ? AND a.row_id = v.row_id OFFSET 0) AS a "
            f"WHERE v.tenant = ? AND v.model = ? AND v.dims = {dims} AND {holds} "
            f"ORDER BY {distance} LIMIT ?",
            (floats, reader.tenant, reader.tenant, model, *held, floats, limit),
        )
        return [(str(r[0]), str(r[1]), float(r[2])) for r in nearest]


_HELD_COLUMNS = "a.tenant, a.subject, a.attribute, a.valid_from, a.valid_to, a.recorded_from, a.recorded_to"
"""What ``holding`` and a fact search's answer read of a version found by its vector."""


def _by_dimension(
    items: dict[Any, npt.NDArray[np.float32]],
) -> dict[int, dict[Any, npt.NDArray[np.float32]]]:
    """Vectors grouped by length: each group is one INSERT slicing one flat array."""
    groups: dict[int, dict[Any, npt.NDArray[np.float32]]] = {}
    for key, vector in items.items():
        groups.setdefault(_dimension(np.asarray(vector)), {})[key] = vector
    return groups
