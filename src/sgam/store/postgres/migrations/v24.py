"""PostgreSQL schema: the purge's tenant list names tenants with checkpoint threads due,
and an action names the checkpoint thread it was made for."""

# Checkpoint retention runs in the purge (``lifecycle.expiry.settle_threads``): a thread of a class
# with a ttl is due when its oldest checkpoint is past the ttl and it has older history to
# prune, or its class erases it. ``sgam_due_tenants`` reads the thread tables across
# tenants for that, as the owner, through the read-only ``lifecycle_sweep`` policy
# (``LIFECYCLE_TABLES``). Replaces the function whole: it depends only on the tables of
# version 20 and earlier. An action made from inside a LangGraph run (or given a thread)
# records its thread, so a thread's page shows the external calls it began and finished.

SCRIPT = """
    ALTER TABLE actions ADD COLUMN thread_id text;
    CREATE INDEX actions_by_thread ON actions (tenant, thread_id, seq) WHERE thread_id IS NOT NULL;

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
        UNION
        SELECT t.tenant FROM @SCHEMA@.saver_threads t
        JOIN @SCHEMA@.retention_classes c ON c.tenant = t.tenant AND c.name = t.retention
        JOIN @SCHEMA@.saver_checkpoints k ON k.tenant = t.tenant AND k.thread_id = t.thread_id
        WHERE c.ttl IS NOT NULL
        GROUP BY t.tenant, t.thread_id, c.ttl, c.on_expiry
        HAVING min(k.created_at) + c.ttl * interval '1 microsecond' <= p_now
           AND (count(*) > 1 OR c.on_expiry = 'erase')
    $$;
    REVOKE ALL ON FUNCTION sgam_due_tenants(timestamptz) FROM PUBLIC;
    """
