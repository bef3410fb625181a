"""``sgam migrate --db URL``: install or upgrade the schema, as the owner role.

On PostgreSQL the URL is the owner's (admin) URL, never the application role's; ``--grant``
gives application roles DML on the tables (they stay bound by row-level security). A
SQLite file migrates itself when opened, so the command just opens it.
"""

from __future__ import annotations

from typing import Annotated

import typer

from .._errors import SgamError
from ..store import migrate_store


def migrate_url(url: str, grant_to: list[str]) -> int:
    """Apply missing migrations at ``url``; return the schema version now installed."""
    return migrate_store(url, grant_to)


def register(app: typer.Typer) -> None:
    @app.command("migrate")
    def migrate_command(
        db: Annotated[str, typer.Option("--db", help="Owner (admin) database URL.")],
        grant: Annotated[list[str] | None, typer.Option(
            "--grant", help="Application role to grant DML to (repeatable; PostgreSQL only).")] = None,
    ) -> None:
        """Install or upgrade the sgam schema; refuses a database newer than this sgam."""
        try:
            version = migrate_url(db, grant or [])
        except SgamError as exc:
            typer.echo(f"error ({exc.kind}): {exc.message}", err=True)
            raise typer.Exit(2 if exc.kind == "validation" else 6) from None
        typer.echo(f"schema version {version}")
