"""SQLite schema, version 12."""

# Checkpoint memory: LangGraph's checkpoints of the tenant's threads, beside the ledger in
# the same file (store/_sql/checkpoints.py says why a checkpoint is stored whole). A
# thread has a retention class (its history is pruned, or the thread erased, when the
# class's ttl has passed) and may name the subjects it is about, so that erasing a
# subject reaches the threads that quote it. The tables are named apart from LangGraph's
# own savers' (``checkpoints``, ``writes``, ``checkpoint_writes``), which users may keep in
# the same file.

SCRIPT = """
    CREATE TABLE saver_threads (
        tenant TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        retention TEXT NOT NULL,
        PRIMARY KEY (tenant, thread_id)
    ) WITHOUT ROWID;

    CREATE TABLE saver_checkpoints (
        tenant TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        parent_id TEXT,
        run_id TEXT,
        kind TEXT NOT NULL,
        body BLOB NOT NULL,
        metadata_kind TEXT NOT NULL,
        metadata BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, thread_id, checkpoint_ns, checkpoint_id)
    );
    CREATE INDEX saver_checkpoints_by_run ON saver_checkpoints (tenant, run_id) WHERE run_id IS NOT NULL;

    CREATE TABLE saver_writes (
        tenant TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        checkpoint_ns TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id TEXT NOT NULL,
        idx INTEGER NOT NULL,
        channel TEXT NOT NULL,
        kind TEXT NOT NULL,
        body BLOB NOT NULL,
        task_path TEXT NOT NULL,
        PRIMARY KEY (tenant, thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
    );

    CREATE TABLE saver_subjects (
        tenant TEXT NOT NULL,
        subject TEXT NOT NULL,
        thread_id TEXT NOT NULL,
        PRIMARY KEY (tenant, subject, thread_id)
    ) WITHOUT ROWID;
    CREATE INDEX saver_subjects_by_thread ON saver_subjects (tenant, thread_id);
"""
