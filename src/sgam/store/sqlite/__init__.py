"""The embedded default: one SQLite file, no server, the full feature set."""

from .backend import SQLiteBackend

__all__ = ["SQLiteBackend"]
