"""The owner's commands: ``sgam migrate --db URL`` installs or upgrades the schema, and
``sgam compact`` removes what erasures left in the database files (``--db``, else
``$SGAM_DATABASE_URL``, else ``sqlite:///./sgam.db``, as every command reads).

On PostgreSQL the URL is the owner's (admin) URL, never the application role's; ``--grant``
gives application roles DML on the tables (they stay bound by row-level security). A
SQLite file migrates itself when opened, so the command just opens it. ``--distributed``
spreads the tables of a Citus coordinator by tenant (``store/postgres/distribute.py``).
"""

from __future__ import annotations

from typing import Annotated

import typer

from .._core.errors import SgamError
from .output import fail, require_existing


def migrate_url(url: str, grant_to: list[str], vector_dimensions: list[int] | None = None,
                distributed: bool = False) -> int:
    """Apply missing migrations at ``url``; return the schema version now installed.
    ``distributed``: ``url`` is a Citus coordinator whose tables are spread by tenant."""
    postgres = url.startswith(("postgresql://", "postgres://"))
    if distributed and not postgres:
        from .._core.errors import ValidationError

        raise ValidationError("distributed", url.partition(":")[0], "needs a postgresql:// URL of a Citus coordinator")
    if (vector_dimensions or distributed) and postgres:
        from ..store.postgres import migrate

        return migrate(url, grant_to=grant_to, vector_dimensions=vector_dimensions or [], distributed=distributed)
    from ..store import migrate_store

    return migrate_store(url, grant_to)


def register(app: typer.Typer) -> None:
    @app.command("migrate")
    def migrate_command(
        db: Annotated[str, typer.Option("--db", help="Owner (admin) database URL.")],
        grant: Annotated[list[str] | None, typer.Option(
            "--grant", help="Application role to grant DML to (repeatable; PostgreSQL only).")] = None,
        vector_dims: Annotated[list[int] | None, typer.Option(
            "--vector-dims", help="Embedding dimension to keep an HNSW index for (repeatable; PostgreSQL only; "
            "vectors of other dimensions are searched exactly).")] = None,
        distributed: Annotated[bool, typer.Option(
            "--distributed", help="The URL is a Citus coordinator: distribute every tenant table by tenant "
            "(docs/citus.md).")] = False,
    ) -> None:
        """Install or upgrade the sgam schema; refuses a database newer than this sgam."""
        try:
            version = migrate_url(db, grant or [], vector_dims, distributed)
        except SgamError as exc:
            fail(exc)
        typer.echo(f"schema version {version}")

    @app.command("compact")
    def compact_command(
        db: Annotated[str | None, typer.Option("--db", help="Owner (admin) database URL, or a SQLite URL "
                                                "(default: $SGAM_DATABASE_URL or sqlite:///./sgam.db).")] = None,
        wait: Annotated[float, typer.Option(
            "--wait", help="SQLite: seconds to wait for readers holding old snapshots.")] = 30.0,
    ) -> None:
        """Remove erased data's leftovers from the database files.

        PostgreSQL rewrites the tables that hold tenant rows (VACUUM FULL, as the owner;
        locks each table meanwhile); SQLite merges its full-text indexes and empties the
        WAL. Exit 6 if some remains; an error exits with its kind's status, as every
        command's does."""
        from ..memory.facade import default_url

        try:
            url = default_url() if db is None else db
            require_existing(url)  # compacting a mistyped path must not create a database
            done, residue = compact_url(url, wait)
        except SgamError as exc:
            fail(exc)
        if residue is not None:
            typer.echo(f"residue remains: {residue}", err=True)
            raise typer.Exit(6)
        typer.echo(done)


def compact_url(url: str, wait: float) -> tuple[str, str | None]:
    """Compact the database at ``url``: what was done, and what remains (None: nothing)."""
    if url.startswith(("postgresql://", "postgres://")):
        from ..store.postgres.maintenance import compact

        tables = compact(url)
        return (f"rewrote {', '.join(tables)}; WAL segments, WAL archives and backups keep erased "
                "bytes until they are recycled or expire (docs/postgres.md)"), None
    from ..memory.facade import Memory

    with Memory(url) as memory:
        residue = memory.purge_residue(wait=wait)
    return "compacted: the full-text indexes are merged and the WAL is empty", residue
