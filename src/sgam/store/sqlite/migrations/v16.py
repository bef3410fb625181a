"""SQLite schema: an action names the checkpoint thread it was made for."""

# An action made from inside a LangGraph run (or given a thread) records its thread, so a
# thread's page shows the external calls it began and finished. Depends only on the
# ``actions`` table of version 5.

SCRIPT = """
    ALTER TABLE actions ADD COLUMN thread_id TEXT;
    CREATE INDEX actions_by_thread ON actions (tenant, thread_id, seq) WHERE thread_id IS NOT NULL;
"""
