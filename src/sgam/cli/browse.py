"""Browsing commands: the tenant's episodes, its declared types, a key's version records."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from .._core.values import MAX_QUERY_LIMIT
from .output import DbOption, JsonOption, TenantOption, console, errors, run
from .tables import cell, compact_time, json_value, print_table
from .timeline import timeline_table

if TYPE_CHECKING:
    from .._core.model import Assertion, Episode
    from .._core.schema import AttributeSchema, MemoryTypeSchema

LimitOption = Annotated[int, typer.Option("--limit", min=1, max=MAX_QUERY_LIMIT, help="At most this many rows.")]


def fetch_limited(limit: int, fetch: Any, what: str) -> list[Any]:
    """Ask for one row more than shown, so the user hears when ``--limit`` cut the list."""
    rows: list[Any] = fetch(min(limit + 1, MAX_QUERY_LIMIT))
    if len(rows) > limit:
        errors.print(f"showing the first {limit} {what}; more match (raise --limit)", highlight=False,
                     markup=False)
        return rows[:limit]
    return rows


def show_episodes(found: list[Episode]) -> None:
    print_table(
        ("episode", "at", "speaker", "kind", "session", "text"),
        [(e.id, compact_time(e.at), cell(e.speaker), e.kind, cell(e.session), e.text) for e in found],
        empty="no episodes", fold=("text",),
    )


def show_schema(found: dict[str, Any]) -> None:
    attributes: list[AttributeSchema] = found["attributes"]
    types: list[MemoryTypeSchema] = found["memory_types"]
    print_table(
        ("attribute", "type", "cardinality", "memory type", "sensitive", "schema version", "renamed to"),
        [(a.attribute, cell(a.value_type), a.cardinality.value, cell(a.memory_type), cell(a.sensitive),
          str(a.schema_version), a.renamed_to or "") for a in attributes],
        empty="no declared attributes",
    )
    if types:
        print_table(("memory type", "JSON schema", "schema version"),
                    [(t.name, json_value(t.json_schema), str(t.schema_version)) for t in types],
                    fold=("JSON schema",))


def show_versions(found: list[Assertion]) -> None:
    """One row per stored version, numbered in the order shown. ``assertion`` is the
    assertion's id, which a retraction keeps: the version it shortened and the shorter
    one are two versions of one assertion, so the id repeats and the note says why."""
    print_table(
        ("version", "assertion", "value", "valid from", "valid to", "recorded", "replaced", "source", "supersedes",
         "origin", "closed by"),
        [(str(number), str(a.id), json_value(a.value), compact_time(a.valid_from), compact_time(a.valid_to),
          compact_time(a.recorded_at), compact_time(a.superseded_at, "current"), a.source, cell(a.supersedes),
          a.origin, cell(a.closed_by)) for number, a in enumerate(found, start=1)],
        title=f"{found[0].subject}.{found[0].attribute}" if found else None, empty="no versions",
    )
    ids = [a.id for a in found]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        console.print(f"assertion {', '.join(map(str, repeated))}: more than one version, because a retraction "
                      "ended it early (the replaced row, then the shortened one)", highlight=False, markup=False)


def register(app: typer.Typer) -> None:
    @app.command("episodes")
    def episodes(
        tenant: TenantOption,
        session: Annotated[str | None, typer.Option(help="Only this conversation or run.")] = None,
        limit: LimitOption = 100,
        purpose: Annotated[str | None, typer.Option(
            help="The use they are read for: hides episodes about subjects whose consent is revoked for it.")] = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """The tenant's episodes, oldest first (less those about subjects whose consent is revoked)."""
        run(db, as_json, lambda m: fetch_limited(
            limit, lambda n: m.episodes(tenant, session=session, limit=n, purpose=purpose), "episodes"),
            show_episodes, create=False)

    @app.command("versions")
    def versions(
        tenant: TenantOption,
        subject: Annotated[str, typer.Argument()],
        attribute: Annotated[str, typer.Argument()],
        timeline: Annotated[bool, typer.Option("--timeline", help="Draw them on a valid-time axis.")] = False,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Every version record of the key, in valid and transaction time, replaced ones included."""

        def show(found: list[Assertion]) -> None:
            if timeline and found:
                console.print(timeline_table(f"{subject}.{attribute}", found))
            else:
                show_versions(found)

        run(db, as_json, lambda m: m.versions(tenant, subject, attribute), show, create=False)
