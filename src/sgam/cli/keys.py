"""``sgam keys create|list|revoke``: API keys for the HTTP API and the MCP server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from .output import DbOption, JsonOption, TenantOption, console, fail, run
from .tables import compact_time, print_table

if TYPE_CHECKING:
    from ..access import ApiKey, IssuedKey

ScopeOption = Annotated[str, typer.Option("--scope", help="read, write (includes read) or admin (includes write).")]


def show_issued(issued: IssuedKey) -> None:
    console.print(f"key {issued.id} for tenant {issued.tenant} (scope {issued.scope}); shown once, store it now:",
                  highlight=False, markup=False)
    typer.echo(issued.key)


def show_keys(keys: list[ApiKey]) -> None:
    print_table(("id", "scope", "created", "revoked"),
                [(key.id, key.scope, compact_time(key.created_at), compact_time(key.revoked_at, "-"))
                 for key in keys], empty="no keys")


def show_revoked(key: ApiKey) -> None:
    console.print(f"key {key.id} revoked", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    keys = typer.Typer(help="API keys: each names one tenant and a scope; only a digest is stored.",
                       no_args_is_help=True)
    app.add_typer(keys, name="keys")

    @keys.command("create")
    def create(tenant: TenantOption, scope: ScopeOption = "read", db: DbOption = None,
               as_json: JsonOption = False) -> None:
        """Create a key for a tenant and print it once."""
        from .._core.errors import SgamError
        from .._core.values import check_tenant
        from ..access import check_scope, create_key

        try:  # before the database is opened: a refused key must not create one
            check_tenant(tenant)
            check_scope(scope)
        except SgamError as exc:
            fail(exc, as_json)
        run(db, as_json, lambda m: create_key(m, tenant, scope), show_issued)

    @keys.command("list")
    def list_command(tenant: TenantOption, db: DbOption = None, as_json: JsonOption = False) -> None:
        """The tenant's keys (never their secrets)."""
        from ..access import list_keys

        run(db, as_json, lambda m: list_keys(m, tenant), show_keys, create=False)

    @keys.command("revoke")
    def revoke(key_id: Annotated[str, typer.Argument(metavar="ID", help="The key's id (from create or list).")],
               db: DbOption = None, as_json: JsonOption = False) -> None:
        """Revoke a key; requests with it fail from the next one on."""
        from ..access import revoke_key

        run(db, as_json, lambda m: revoke_key(m, key_id), show_revoked, create=False)


