"""PostgreSQL schema: which embedder a tenant's search uses, and the one being built."""

# Re-embedding builds a new embedder's vectors beside the old ones (episode, assertion
# and document vectors are already keyed by model) and switches search to them once every
# episode, current fact and document chunk has one (``search/reembedding.py``).
# ``search_embedders`` keeps, per tenant, the embedder search uses (``active``: NULL means
# the embedder each process is configured with, as before this version) and the one being
# built, each with the spec a process loads it by (NULL for an embedder given as an
# object). A tenant table: row-level security and the app grants come with
# ``TENANT_TABLES``.
#
# The switch deletes every vector of the old model in one statement, and the trigger of
# version 16 deletes their heads by joining the statement's transition table to the
# heads. With statistics of a table that has just grown, the planner probed the heads by
# (tenant, model) and filtered on the episode: every deleted vector scanned all of the
# model's heads, 8-14 s for 10,000 vectors (a single erasure never noticed). The model is
# now compared as an expression, so the only index the join can probe is the primary
# key's (tenant, episode_id). Depends on version 16.

SCRIPT = """
    CREATE TABLE search_embedders (
        tenant text NOT NULL PRIMARY KEY CHECK (tenant <> ''),
        active text,
        active_spec text,
        building text,
        building_spec text,
        building_since timestamptz,
        switched_at timestamptz,
        CHECK (building IS NULL OR building_since IS NOT NULL)
    );

    CREATE OR REPLACE FUNCTION sgam_episode_vector_heads_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM episode_vector_heads h USING gone g
            WHERE h.tenant = g.tenant AND h.episode_id = g.episode_id AND h.model || '' = g.model;
        RETURN NULL;
    END $$;
"""
