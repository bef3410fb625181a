"""SQLite schema, version 3."""

# The extraction path — what models replied, what policy decided, candidates held back
# (pending confirmation or buffered as weak signals) and the background job queue.

SCRIPT = """
    CREATE TABLE extractions (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        recorded_at INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
        error TEXT,
        model TEXT,
        raw_reply TEXT,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        latency_ms REAL,
        decisions TEXT NOT NULL,
        UNIQUE (tenant, episode_id, attempt)
    );

    CREATE TABLE held_candidates (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        hold TEXT NOT NULL CHECK (hold IN ('pending', 'buffered')),
        status TEXT NOT NULL CHECK (status IN ('open', 'confirmed', 'rejected', 'promoted')),
        subject TEXT NOT NULL,
        attribute TEXT NOT NULL,
        change TEXT NOT NULL,
        value TEXT NOT NULL,
        valid_from INTEGER NOT NULL,
        confidence REAL NOT NULL,
        stated INTEGER NOT NULL,
        evidence TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        resolved_at INTEGER,
        UNIQUE (tenant, hold, episode_id, subject, attribute, value, valid_from)
    );
    CREATE INDEX held_by_key ON held_candidates (tenant, subject, attribute, value, status);
    CREATE INDEX held_by_status ON held_candidates (tenant, status, seq);

    CREATE TABLE extraction_jobs (
        seq INTEGER PRIMARY KEY,
        tenant TEXT NOT NULL,
        episode_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'done', 'failed')),
        enqueued_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_expires INTEGER,
        last_error TEXT,
        UNIQUE (tenant, episode_id)
    );
    CREATE INDEX extraction_jobs_ready ON extraction_jobs (status, lease_expires, seq);
    """
