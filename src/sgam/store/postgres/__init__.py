"""The server backend: PostgreSQL with row-level security by tenant, for multi-tenant
services. ``migrate`` installs or upgrades the schema as the owner role."""

from .backend import PostgresBackend
from .install import migrate, temporary_database

__all__ = ["PostgresBackend", "migrate", "temporary_database"]
