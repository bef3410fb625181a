"""PostgreSQL schema, version 10."""

# Documents inside the lifecycle. ``kept_since`` is when the document's oldest kept
# revision was recorded: plus its class's ttl it is the document's next deadline, so "is
# any document due" is one index probe per class. Revisions are found by the episode
# they name when that episode is erased. The purge's tenant list also names tenants with
# due documents or expired LangGraph store items.

SCRIPT = """
    ALTER TABLE documents ADD COLUMN kept_since timestamptz;
    UPDATE documents d SET kept_since = coalesce((SELECT min(r.recorded_at) FROM document_revisions r
        WHERE r.tenant = d.tenant AND r.doc_id = d.doc_id), d.created_at);
    ALTER TABLE documents ALTER COLUMN kept_since SET NOT NULL;
    CREATE INDEX documents_by_deadline ON documents (tenant, retention, kept_since);
    CREATE INDEX document_revisions_by_episode ON document_revisions (tenant, episode) WHERE episode IS NOT NULL;
    -- reads load the statements of subjects with a revoked one only, found here
    CREATE INDEX consents_revoked ON consents (tenant, purpose, subject) WHERE NOT granted;

    CREATE OR REPLACE FUNCTION sgam_due_tenants(p_now timestamptz)
    RETURNS SETOF text LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
    AS $$
        SELECT tenant FROM @SCHEMA@.operations WHERE expires_at <= p_now
        UNION
        SELECT e.tenant FROM @SCHEMA@.episodes e
        JOIN @SCHEMA@.retention_classes c ON c.tenant = e.tenant AND c.name = e.retention
        WHERE c.ttl IS NOT NULL
          AND e.recorded_at + c.ttl * interval '1 microsecond' <= p_now
          AND (e.lost_at IS NULL OR c.on_expiry = 'erase')
        UNION
        SELECT d.tenant FROM @SCHEMA@.documents d
        JOIN @SCHEMA@.retention_classes c ON c.tenant = d.tenant AND c.name = d.retention
        WHERE c.ttl IS NOT NULL AND d.kept_since + c.ttl * interval '1 microsecond' <= p_now
        UNION
        SELECT tenant FROM @SCHEMA@.store_items WHERE expires_at <= p_now
    $$;
    REVOKE ALL ON FUNCTION sgam_due_tenants(timestamptz) FROM PUBLIC;
    """
