"""PostgreSQL schema: which embedder a tenant's search uses, and the one being built."""

# Re-embedding builds a new embedder's vectors beside the old ones (episode, assertion
# and document vectors are already keyed by model) and switches search to them once every
# episode, current fact and document chunk has one (``search/reembedding.py``).
# ``search_embedders`` keeps, per tenant, the embedder search uses (``active``: NULL means
# the embedder each process is configured with, as before this version) and the one being
# built, each with the spec a process loads it by (NULL for an embedder given as an
# object). A tenant table: row-level security and the app grants come with
# ``TENANT_TABLES``. Depends on nothing but version 1.

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
"""
