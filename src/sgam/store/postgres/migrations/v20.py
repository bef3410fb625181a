"""PostgreSQL schema, version 20."""

# Checkpoint memory: LangGraph's checkpoints of the tenant's threads, in the ledger's
# database under the same row-level security (store/_sql/checkpoints.py says why a
# checkpoint is stored whole). A thread has a retention class and may name the subjects
# it is about, so that erasing a subject reaches the threads that quote it. The tenant
# leads every key, as everywhere. The tables are named apart from LangGraph's own
# PostgresSaver's (``checkpoints``, ``checkpoint_blobs``, ``checkpoint_writes``), which users
# may keep in the same database.

SCRIPT = """
    CREATE TABLE saver_threads (
        tenant text NOT NULL CHECK (tenant <> ''),
        thread_id text NOT NULL,
        retention text NOT NULL,
        PRIMARY KEY (tenant, thread_id)
    );

    CREATE TABLE saver_checkpoints (
        tenant text NOT NULL CHECK (tenant <> ''),
        thread_id text NOT NULL,
        checkpoint_ns text NOT NULL,
        checkpoint_id text NOT NULL,
        parent_id text,
        run_id text,
        kind text NOT NULL,
        body bytea NOT NULL,
        metadata_kind text NOT NULL,
        metadata bytea NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (tenant, thread_id, checkpoint_ns, checkpoint_id)
    );
    CREATE INDEX saver_checkpoints_by_run ON saver_checkpoints (tenant, run_id) WHERE run_id IS NOT NULL;

    CREATE TABLE saver_writes (
        tenant text NOT NULL CHECK (tenant <> ''),
        thread_id text NOT NULL,
        checkpoint_ns text NOT NULL,
        checkpoint_id text NOT NULL,
        task_id text NOT NULL,
        idx integer NOT NULL,
        channel text NOT NULL,
        kind text NOT NULL,
        body bytea NOT NULL,
        task_path text NOT NULL,
        PRIMARY KEY (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
    );

    CREATE TABLE saver_subjects (
        tenant text NOT NULL CHECK (tenant <> ''),
        subject text NOT NULL,
        thread_id text NOT NULL,
        PRIMARY KEY (tenant, subject, thread_id)
    );
    CREATE INDEX saver_subjects_by_thread ON saver_subjects (tenant, thread_id);
"""
