"""PostgreSQL schema, version 13."""

# Episode vectors carry the episode's filter columns. A filtered vector search (a recall
# up to a valid time, a session, a speaker, a transaction time) joined every vector of
# the tenant to its episode before ranking: a scan of both tables, ten times the
# unfiltered search at 10k episodes. Episodes never change these columns (a re-recorded
# id must have the same content), so copies taken when the vector is stored stay exact,
# and the filter is tested on the vector row itself, by an exact scan or by pgvector's
# iterative HNSW scan alike.

SCRIPT = """
    ALTER TABLE episode_vectors
        ADD COLUMN occurred_at timestamptz,
        ADD COLUMN recorded_at timestamptz,
        ADD COLUMN session text,
        ADD COLUMN speaker text;
    UPDATE episode_vectors v
        SET occurred_at = e.occurred_at, recorded_at = e.recorded_at, session = e.session, speaker = e.speaker
        FROM episodes e WHERE e.tenant = v.tenant AND e.episode_id = v.episode_id;
    ALTER TABLE episode_vectors ALTER COLUMN occurred_at SET NOT NULL, ALTER COLUMN recorded_at SET NOT NULL;
    """
