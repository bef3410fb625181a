"""PostgreSQL schema: the deadline probe ``sgam_lifecycle_due`` planned for its tenant, and no
server function pinned to generic plans."""

# The same question as before, asked so that a distributed planner can route it to one
# shard: every subquery names the bound tenant (not ``= c.tenant``, a correlation Citus
# cannot prune by), and no generic plan is forced (Citus plans a statement whose tenant is
# a parameter only when the value is known, in a custom plan; PostgreSQL alone still
# switches to a generic plan after five calls when it costs no more). As the portable
# statement in store/_sql/lifecycle.py. The functions that pinned generic plans lose the
# pin for the same reason (the setting holds for the functions they call, the probe too).

SCRIPT = """
    CREATE OR REPLACE FUNCTION sgam_lifecycle_due(p_tenant text, p_now timestamptz) RETURNS boolean
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
        RETURN EXISTS (SELECT 1 FROM @SCHEMA@.operations o
                       WHERE o.tenant = p_tenant AND o.expires_at IS NOT NULL AND o.expires_at <= p_now)
            OR EXISTS (SELECT 1 FROM @SCHEMA@.store_items s
                       WHERE s.tenant = p_tenant AND s.expires_at IS NOT NULL AND s.expires_at <= p_now)
            OR EXISTS (
                SELECT 1 FROM @SCHEMA@.retention_classes c
                WHERE c.tenant = p_tenant AND c.ttl IS NOT NULL
                  AND (p_now - c.ttl * interval '1 microsecond' >= CASE WHEN c.on_expiry = 'erase'
                          THEN (SELECT min(e.recorded_at) FROM @SCHEMA@.episodes e
                                WHERE e.tenant = p_tenant AND e.retention = c.name)
                          ELSE (SELECT min(e.recorded_at) FROM @SCHEMA@.episodes e
                                WHERE e.tenant = p_tenant AND e.retention = c.name AND e.lost_at IS NULL) END
                       OR p_now - c.ttl * interval '1 microsecond' >= (
                          SELECT min(d.kept_since) FROM @SCHEMA@.documents d
                          WHERE d.tenant = p_tenant AND d.retention = c.name)));
    END $$;
    DO $$
    DECLARE f regprocedure;
    BEGIN
        FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
                 WHERE p.pronamespace = @SCHEMA_LITERAL@::regnamespace
                   AND 'plan_cache_mode=force_generic_plan' = ANY (p.proconfig) LOOP
            EXECUTE format('ALTER FUNCTION %s RESET plan_cache_mode', f);
        END LOOP;
    END $$;
"""
