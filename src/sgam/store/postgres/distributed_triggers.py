"""The statement triggers that keep sgam's derived tables (episode and vector counts,
vector heads, the ledger's keys and their terms), as a distributed database can run them.

On Citus a trigger fires on the worker, on its shard; a statement there that reads the
transition table *and* writes another distributed table is planned as a distributed
``INSERT … SELECT`` that cannot see the transition table. These versions read the
transition table alone (a local query) and write each group or row with a statement that
names its tenant: routed to the colocated shard on the same worker. They do what the
set-based versions of the migrations do, a row or group at a time, so
``distribute.py`` installs them only on a distributed database (after every migration,
which may have replaced them) and PostgreSQL alone keeps the set-based ones.
"""

from __future__ import annotations

SCRIPT = """
CREATE OR REPLACE FUNCTION sgam_episodes_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT tenant, count(*) AS n FROM changed GROUP BY tenant LOOP
        INSERT INTO episode_counts AS c (tenant, slot, episodes)
            VALUES (r.tenant, pg_backend_pid() % 8, CASE WHEN TG_OP = 'INSERT' THEN r.n ELSE -r.n END)
            ON CONFLICT (tenant, slot) DO UPDATE SET episodes = c.episodes + excluded.episodes;
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sgam_episode_vectors_counted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        FOR r IN SELECT tenant, model, dims, count(*) AS n, sum(seq)::bigint AS s, count(*) AS k, 0 AS w
                 FROM changed GROUP BY tenant, model, dims LOOP
            PERFORM sgam_count_vectors(r.tenant, r.model, r.dims, r.n, r.s, r.k, r.w);
        END LOOP;
    ELSIF TG_OP = 'DELETE' THEN
        FOR r IN SELECT tenant, model, dims, -count(*) AS n, -sum(seq)::bigint AS s, count(*) AS k, 0 AS w
                 FROM gone GROUP BY tenant, model, dims LOOP
            PERFORM sgam_count_vectors(r.tenant, r.model, r.dims, r.n, r.s, r.k, r.w);
        END LOOP;
    ELSE
        FOR r IN SELECT tenant, model, dims, sum(n) AS n, sum(s)::bigint AS s, count(*) AS k, count(*) AS w
                 FROM (SELECT tenant, model, dims, -1 AS n, -seq AS s FROM gone
                       UNION ALL SELECT tenant, model, dims, 1, seq FROM changed) AS moved
                 GROUP BY tenant, model, dims LOOP
            PERFORM sgam_count_vectors(r.tenant, r.model, r.dims, r.n, r.s, r.k, r.w);
        END LOOP;
    END IF;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sgam_count_vectors(
    p_tenant text, p_model text, p_dims integer, p_vectors bigint, p_sum bigint, p_changes bigint, p_rewrites bigint
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO episode_vector_counts AS c (tenant, model, dims, slot, vectors, key_sum, changes, rewrites)
        VALUES (p_tenant, p_model, p_dims, pg_backend_pid() % 8, p_vectors, p_sum, p_changes, p_rewrites)
        ON CONFLICT (tenant, model, dims, slot) DO UPDATE SET vectors = c.vectors + excluded.vectors,
            key_sum = c.key_sum + excluded.key_sum, changes = c.changes + excluded.changes,
            rewrites = c.rewrites + excluded.rewrites;
END $$;

CREATE OR REPLACE FUNCTION sgam_episode_vector_heads() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT tenant, episode_id, model, seq, dims, occurred_at, recorded_at, session, speaker,
                    subvector(l2_normalize(embedding), 1, dims * 3 / 8)::halfvec AS head
             FROM changed WHERE dims >= 64 LOOP
        INSERT INTO episode_vector_heads AS h (tenant, episode_id, model, seq, dims, occurred_at, recorded_at,
                                                session, speaker, head)
            VALUES (r.tenant, r.episode_id, r.model, r.seq, r.dims, r.occurred_at, r.recorded_at, r.session,
                    r.speaker, r.head)
            ON CONFLICT (tenant, episode_id, model) DO UPDATE SET dims = excluded.dims, head = excluded.head;
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sgam_episode_vector_heads_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT g.tenant, g.episode_id, g.model FROM gone g
             WHERE NOT EXISTS (SELECT 1 FROM changed c WHERE c.tenant = g.tenant AND c.episode_id = g.episode_id
                               AND c.model = g.model AND c.dims >= 64) LOOP
        DELETE FROM episode_vector_heads
            WHERE tenant = r.tenant AND episode_id = r.episode_id AND model = r.model;
    END LOOP;
    FOR r IN SELECT tenant, episode_id, model, seq, dims, occurred_at, recorded_at, session, speaker,
                    subvector(l2_normalize(embedding), 1, dims * 3 / 8)::halfvec AS head
             FROM changed WHERE dims >= 64 LOOP
        INSERT INTO episode_vector_heads AS h (tenant, episode_id, model, seq, dims, occurred_at, recorded_at,
                                                session, speaker, head)
            VALUES (r.tenant, r.episode_id, r.model, r.seq, r.dims, r.occurred_at, r.recorded_at, r.session,
                    r.speaker, r.head)
            ON CONFLICT (tenant, episode_id, model) DO UPDATE SET dims = excluded.dims, head = excluded.head;
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sgam_episode_vector_heads_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT tenant, episode_id, model FROM gone LOOP
        DELETE FROM episode_vector_heads
            WHERE tenant = r.tenant AND episode_id = r.episode_id AND model = r.model;
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sgam_ledger_key_terms_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT a.tenant, l.lexeme, a.key_id FROM added a, unnest(tsvector_to_array(a.search)) AS l(lexeme) LOOP
        INSERT INTO ledger_key_terms (tenant, lexeme, key_id) VALUES (r.tenant, r.lexeme, r.key_id)
            ON CONFLICT DO NOTHING;
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sgam_ledger_keys_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT DISTINCT tenant, subject, attribute FROM removed LOOP
        DELETE FROM ledger_keys k
        WHERE k.tenant = r.tenant AND k.subject = r.subject AND k.attribute = r.attribute
          AND NOT EXISTS (SELECT 1 FROM operations o WHERE o.tenant = r.tenant
                          AND o.subject = r.subject AND o.attribute = r.attribute);
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sgam_ledger_keys_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
    FOR r IN SELECT DISTINCT tenant, subject, attribute FROM added LOOP
        INSERT INTO ledger_keys (tenant, subject, attribute) VALUES (r.tenant, r.subject, r.attribute)
            ON CONFLICT (tenant, subject, attribute) DO NOTHING;
    END LOOP;
    RETURN NULL;
END $$;
"""
"""Run by ``distribute`` in the schema the tables are in."""
