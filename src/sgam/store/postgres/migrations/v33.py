"""PostgreSQL schema: ``episode_vectors``' foreign key to its episode without ``ON UPDATE CASCADE``."""

# An episode's id and tenant never change (a re-recorded id must have the same content),
# so the cascade never fired; Citus refuses a cascading update on a foreign key that holds
# the distribution column, and ``sgam migrate --distributed`` needs the key without it.
# SQLite keeps no such table.

SCRIPT = """
    ALTER TABLE episode_vectors DROP CONSTRAINT episode_vectors_tenant_episode_id_fkey;
    ALTER TABLE episode_vectors ADD CONSTRAINT episode_vectors_tenant_episode_id_fkey
        FOREIGN KEY (tenant, episode_id) REFERENCES episodes (tenant, episode_id) ON DELETE CASCADE;
"""
