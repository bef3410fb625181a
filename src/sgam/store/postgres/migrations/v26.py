"""PostgreSQL schema: checkpoint memory in one statement per call."""

# A checkpoint put sent the tenant's set_config and then its insert (thread and checkpoint
# in one data-modifying WITH); a task's pending writes sent the set_config and one insert
# per write; a resume's read sent the set_config and its one select. Each statement costs
# the driver a flush and polls of the socket, which LangGraph's own saver, sending no
# tenant, does not pay. Now each call is one statement; the server does the same work
# inside it (bench/README.md has what that saved: a read, not a write). Three functions,
# run as the caller (SECURITY INVOKER: row-level security binds them as it binds the
# caller's own statements, so another tenant's thread is neither found nor overwritten),
# each setting the transaction-local tenant first, as sgam_write_lookups does:
#
# - sgam_put_checkpoint: registers the thread under its retention class the first time,
#   stores the checkpoint (a second put of one id replaces it) and the subjects it names;
# - sgam_put_writes: one task's writes as parallel arrays; a regular write (idx >= 0)
#   keeps the first one stored for its slot, a special one (errors, interrupts: idx < 0)
#   replaces it (one INSERT whose conflict updates only where idx < 0), and the caller
#   sends each slot once;
# - sgam_checkpoint_with_writes: the checkpoint with that id (or the newest of the
#   namespace) and its pending writes, in the shape of the portable statement
#   (store/_sql/checkpoints.py ``_with_writes``).
#
# No SET clause (it would push and pop a setting on every call): each statement is a
# simple insert or an index probe, whose plan is the same for any values.
#
# Called in a write's own transaction (its pipeline) the tenant set holds until that
# transaction ends, as the caller's set_config would; called alone on an autocommit
# connection (a read) it is a transaction of its own, so the tenant ends with it.

SCRIPT = """
    CREATE FUNCTION sgam_put_checkpoint(
        p_tenant text, p_thread_id text, p_checkpoint_ns text, p_checkpoint_id text, p_parent_id text,
        p_run_id text, p_kind text, p_body bytea, p_metadata_kind text, p_metadata bytea,
        p_created_at timestamptz, p_retention text, p_subjects text[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM set_config('sgam.tenant', p_tenant, true);
        INSERT INTO @SCHEMA@.saver_threads (tenant, thread_id, retention)
        VALUES (p_tenant, p_thread_id, p_retention)
        ON CONFLICT (tenant, thread_id) DO NOTHING;
        INSERT INTO @SCHEMA@.saver_checkpoints (tenant, thread_id, checkpoint_ns, checkpoint_id, parent_id, run_id,
                                                kind, body, metadata_kind, metadata, created_at)
        VALUES (p_tenant, p_thread_id, p_checkpoint_ns, p_checkpoint_id, p_parent_id, p_run_id, p_kind, p_body,
                p_metadata_kind, p_metadata, p_created_at)
        ON CONFLICT (tenant, thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
            parent_id = excluded.parent_id, run_id = excluded.run_id, kind = excluded.kind, body = excluded.body,
            metadata_kind = excluded.metadata_kind, metadata = excluded.metadata, created_at = excluded.created_at;
        IF p_subjects IS NOT NULL THEN
            INSERT INTO @SCHEMA@.saver_subjects (tenant, subject, thread_id)
            SELECT p_tenant, s, p_thread_id FROM unnest(p_subjects) AS s
            ON CONFLICT (tenant, subject, thread_id) DO NOTHING;
        END IF;
    END $$;
    REVOKE ALL ON FUNCTION sgam_put_checkpoint(text, text, text, text, text, text, text, bytea, text, bytea,
                                               timestamptz, text, text[]) FROM PUBLIC;

    CREATE FUNCTION sgam_put_writes(
        p_tenant text, p_thread_id text, p_checkpoint_ns text, p_checkpoint_id text, p_task_id text,
        p_task_path text, p_idx integer[], p_channels text[], p_kinds text[], p_bodies bytea[]
    ) RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
        PERFORM set_config('sgam.tenant', p_tenant, true);
        IF cardinality(p_idx) = 1 THEN  -- most tasks write once: a row of values, not an unnest
            INSERT INTO @SCHEMA@.saver_writes (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx,
                                               channel, kind, body, task_path)
            VALUES (p_tenant, p_thread_id, p_checkpoint_ns, p_checkpoint_id, p_task_id, p_idx[1], p_channels[1],
                    p_kinds[1], p_bodies[1], p_task_path)
            ON CONFLICT (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET
                channel = excluded.channel, kind = excluded.kind, body = excluded.body, task_path = excluded.task_path
            WHERE excluded.idx < 0;
            RETURN;
        END IF;
        INSERT INTO @SCHEMA@.saver_writes (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel,
                                           kind, body, task_path)
        SELECT p_tenant, p_thread_id, p_checkpoint_ns, p_checkpoint_id, p_task_id, w.idx, w.channel, w.kind,
               w.body, p_task_path
        FROM unnest(p_idx, p_channels, p_kinds, p_bodies) AS w (idx, channel, kind, body)
        ON CONFLICT (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET
            channel = excluded.channel, kind = excluded.kind, body = excluded.body, task_path = excluded.task_path
        WHERE excluded.idx < 0;
    END $$;
    REVOKE ALL ON FUNCTION sgam_put_writes(text, text, text, text, text, text, integer[], text[], text[], bytea[])
        FROM PUBLIC;

    CREATE FUNCTION sgam_checkpoint_with_writes(
        p_tenant text, p_thread_id text, p_checkpoint_ns text, p_checkpoint_id text
    ) RETURNS TABLE (
        side integer, thread_id text, checkpoint_ns text, checkpoint_id text, parent_id text, run_id text,
        kind text, body bytea, metadata_kind text, metadata bytea, created_at timestamptz, idx integer
    ) LANGUAGE plpgsql AS $$
    #variable_conflict use_column
    DECLARE
        v_id text := p_checkpoint_id;
    BEGIN
        PERFORM set_config('sgam.tenant', p_tenant, true);
        IF v_id IS NULL THEN
            v_id := (SELECT max(c.checkpoint_id) FROM @SCHEMA@.saver_checkpoints c
                     WHERE c.tenant = p_tenant AND c.thread_id = p_thread_id AND c.checkpoint_ns = p_checkpoint_ns);
            IF v_id IS NULL THEN
                RETURN;
            END IF;
        END IF;
        RETURN QUERY
            SELECT 0, c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_id, c.run_id, c.kind, c.body,
                   c.metadata_kind, c.metadata, c.created_at, NULL::integer
            FROM @SCHEMA@.saver_checkpoints c
            WHERE c.tenant = p_tenant AND c.thread_id = p_thread_id AND c.checkpoint_ns = p_checkpoint_ns
              AND c.checkpoint_id = v_id
            UNION ALL
            SELECT 1, w.task_path, w.task_id, w.channel, NULL, NULL, w.kind, w.body, NULL, NULL, NULL, w.idx
            FROM @SCHEMA@.saver_writes w
            WHERE w.tenant = p_tenant AND w.thread_id = p_thread_id AND w.checkpoint_ns = p_checkpoint_ns
              AND w.checkpoint_id = v_id;
    END $$;
    REVOKE ALL ON FUNCTION sgam_checkpoint_with_writes(text, text, text, text) FROM PUBLIC;
    """
