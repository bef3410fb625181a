"""SQLite schema, version 8."""

# Documents inside the lifecycle. ``kept_since`` is when the document's oldest kept
# revision was recorded: plus its class's ttl it is the document's next deadline, so "is
# any document due" is one index probe per class. Revisions are found by the episode
# they name when that episode is erased; subjects with a revoked consent statement by a
# partial index.

SCRIPT = """
    ALTER TABLE documents ADD COLUMN kept_since INTEGER;
    UPDATE documents SET kept_since = coalesce((SELECT min(r.recorded_at) FROM document_revisions r
        WHERE r.tenant = documents.tenant AND r.doc_id = documents.doc_id), created_at);
    CREATE INDEX documents_by_deadline ON documents (tenant, retention, kept_since);
    CREATE INDEX document_revisions_by_episode ON document_revisions (tenant, episode) WHERE episode IS NOT NULL;
    -- reads load the statements of subjects with a revoked one only, found here
    CREATE INDEX consents_revoked ON consents (tenant, purpose, subject) WHERE granted = 0;
    """
