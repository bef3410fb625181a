"""``sgam docs``: a tenant's documents under /memories, from the shell."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from .._core.errors import SgamError, ValidationError
from .._core.time import format_timestamp
from .inputs import TEXT_HELP, read_text
from .output import DbOption, JsonOption, TenantOption, console, fail, open_memory, print_json, run

if TYPE_CHECKING:
    from ..documents import Document, DocumentHit, Provenance
    from ..documents.sync import ExportResult, ImportResult
    from ..memory.facade import Memory

PathArg = Annotated[str, typer.Argument(help="A path under /memories, e.g. /memories/notes.md.")]
RevisionOption = Annotated[int | None, typer.Option(
    "--revision", help="The revision you read: the change fails if the document moved on since.")]
AuthorOption = Annotated[str, typer.Option("--author", help="Who makes the change (kept with the revision).")]
FileOption = Annotated[Path | None, typer.Option("--file", "-f", help="Read the text from this file ('-': stdin).")]
TextOption = Annotated[str | None, typer.Option("--text", help=TEXT_HELP)]


def _by(author: str) -> Provenance:
    """The author of a change (document memory is imported when a command runs)."""
    from ..documents import Provenance

    return Provenance(author)


def _text(file: Path | None, text: str | None) -> str:
    """The text of a create or edit: --text (``-`` and ``@PATH`` read as everywhere in the
    CLI), else --file (UTF-8, checked), else stdin."""
    from ..documents.text import decode_file

    if text is not None and file is not None:
        raise ValidationError("text", "--text and --file", "give one of them, not both")
    if text is not None:
        return read_text(text)
    if file is None or str(file) == "-":
        return decode_file(sys.stdin.buffer.read(), "stdin")
    if file.is_symlink() or not file.is_file():
        raise ValidationError("file", str(file), "must be a regular file (links are not followed)")
    return decode_file(file.read_bytes(), f"file {file}")


def _show_document(document: Document) -> None:
    console.print(f"{escape(document.path)} revision {document.revision} ({document.size} bytes)", highlight=False)


def _view(memory: Memory, tenant: str, path: str) -> Any:
    docs = memory.documents
    document = docs.get(tenant, path)
    if document is not None:
        return document
    return {"path": path.rstrip("/") or path, "entries": docs.listing(tenant, path)}


def _show_view(found: Any) -> None:
    from ..documents import Document
    from ..documents.text import view_lines
    from ..tools.memory_tool import format_size, numbered

    if isinstance(found, Document):
        typer.echo(numbered(view_lines(found.content), 1))
        return
    for entry in found["entries"]:
        typer.echo(f"{format_size(entry.size)}\t{entry.path}{'/' if entry.is_dir else ''}")


def _show_history(revisions: Any) -> None:
    for r in revisions:
        who = ", ".join(part for part in (r.author, r.episode and f"episode {r.episode}",
                                          r.call and f"call {r.call}") if part)
        typer.echo(f"{r.revision}\t{format_timestamp(r.recorded_at)}\t{r.op}\t{r.path}\t{who}")


def _show_hits(hits: list[DocumentHit]) -> None:
    for hit in hits:
        first = hit.text.splitlines()[0] if hit.text else ""
        typer.echo(f"{hit.path}@{hit.revision}:{hit.start_line}-{hit.end_line}\t{first}")


def _show_import(result: ImportResult) -> None:
    console.print(f"created {len(result.created)}, updated {len(result.updated)}, deleted {len(result.deleted)}, "
                  f"unchanged {result.unchanged}, missing {len(result.missing)}, conflicts {len(result.conflicts)}")
    for conflict in result.conflicts:
        console.print(f"[red]conflict[/red] {escape(conflict['path'])}: {escape(conflict['reason'])}",
                      highlight=False)


def _apart_from_database(db: str | None, directory: Path, as_json: bool) -> None:
    """Export and import read every file under DIR, and reading a SQLite database through
    a second descriptor drops the locks this process's connection holds on it (then
    another process may delete the WAL it writes to): a DIR holding the database is
    refused before anything is opened."""
    from ..memory.facade import default_url
    from ..store.sqlite import sqlite_path

    url = default_url() if db is None else db
    if not url.startswith("sqlite:///") or url == "sqlite:///:memory:":
        return
    database = Path(sqlite_path(url)).resolve()
    if database.parent.is_relative_to(directory.resolve()):
        fail(ValidationError("directory", str(directory), f"holds the database {database}: export to and import "
                             "from a directory of their own"), as_json)


def register(app: typer.Typer) -> None:
    docs = typer.Typer(help="Document memory: a tenant's files under /memories, every revision kept.",
                       no_args_is_help=True)
    app.add_typer(docs, name="docs")

    @docs.command("view")
    def view(tenant: TenantOption, path: PathArg = "/memories", db: DbOption = None, as_json: JsonOption = False,
             ) -> None:
        """Show a document with line numbers, or list a directory two levels deep."""
        run(db, as_json, lambda m: _view(m, tenant, path), _show_view, create=False)

    @docs.command("create")
    def create(
        tenant: TenantOption, path: PathArg, file: FileOption = None, text: TextOption = None,
        source: Annotated[str | None, typer.Option(help="Where the text comes from.")] = None,
        retention: Annotated[str, typer.Option(help="Retention class.")] = "default",
        author: AuthorOption = "cli", db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Create a document (never overwrites)."""
        run(db, as_json, lambda m: m.documents.create(tenant, path, _text(file, text), by=_by(author),
                                                      source=source, retention=retention), _show_document)

    @docs.command("edit")
    def edit(
        tenant: TenantOption, path: PathArg,
        old: Annotated[str | None, typer.Option("--old", help="Replace this exact text (it must occur once)...")]
        = None,
        new: Annotated[str | None, typer.Option("--new", help="...with this text.")] = None,
        insert_line: Annotated[int | None, typer.Option("--insert-line", help="Insert --text after this line "
                                                        "(0: at the top).")] = None,
        file: FileOption = None, text: TextOption = None, revision: RevisionOption = None,
        author: AuthorOption = "cli", db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Change a document: replace text, insert a line, or replace the whole text.

        --old/--new replaces text, --insert-line inserts, otherwise the whole text is
        replaced by --text, --file or stdin."""
        by = _by(author)

        def call(m: Memory) -> Document:
            if old is not None or new is not None:
                if old is None or new is None:
                    raise ValidationError("old", old, "--old and --new go together")
                return m.documents.str_replace(tenant, path, old, new, expected_revision=revision, by=by).document
            if insert_line is not None:
                return m.documents.insert(tenant, path, insert_line, _text(file, text), expected_revision=revision,
                                          by=by)
            return m.documents.write(tenant, path, _text(file, text), expected_revision=revision, by=by)

        run(db, as_json, call, _show_document)

    @docs.command("rm")
    def rm(tenant: TenantOption, path: PathArg, revision: RevisionOption = None, author: AuthorOption = "cli",
           db: DbOption = None, as_json: JsonOption = False) -> None:
        """Delete a document or a directory (revisions are kept; see `sgam docs erase`)."""
        run(db, as_json, lambda m: {"deleted": m.documents.delete(tenant, path, expected_revision=revision,
                                                                  by=_by(author))},
            lambda r: console.print(f"deleted {len(r['deleted'])} document(s)"))

    @docs.command("mv")
    def mv(tenant: TenantOption, old_path: PathArg, new_path: PathArg, revision: RevisionOption = None,
           author: AuthorOption = "cli", db: DbOption = None, as_json: JsonOption = False) -> None:
        """Move or rename a document or a directory."""
        run(db, as_json, lambda m: {"moved": m.documents.rename(tenant, old_path, new_path,
                                                                expected_revision=revision, by=_by(author))},
            lambda r: console.print(f"moved {len(r['moved'])} document(s)"))

    @docs.command("history")
    def history(
        tenant: TenantOption, path: PathArg,
        show: Annotated[int | None, typer.Option("--show", help="Print the text of this revision.")] = None,
        diff: Annotated[str | None, typer.Option("--diff", help="A unified diff: OLD or OLD:NEW.")] = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Every revision of a document; --show N prints one, --diff A:B compares two."""
        if show is not None:
            run(db, as_json, lambda m: m.documents.revision(tenant, path, show),
                lambda r: typer.echo(r.content if r.content is not None else "(deleted)", nl=False), create=False)
        elif diff is not None:
            old, _, new = diff.partition(":")
            run(db, as_json, lambda m: {"diff": m.documents.diff(tenant, path, _number(old),
                                                                 _number(new) if new else None)},
                lambda r: typer.echo(r["diff"], nl=False), create=False)
        else:
            run(db, as_json, lambda m: m.documents.history(tenant, path), _show_history, create=False)

    @docs.command("restore")
    def restore(tenant: TenantOption, path: PathArg, number: Annotated[int, typer.Argument(metavar="REVISION")],
                revision: RevisionOption = None, author: AuthorOption = "cli", db: DbOption = None,
                as_json: JsonOption = False) -> None:
        """Make an earlier revision's text current again (also brings back a deleted document)."""
        run(db, as_json, lambda m: m.documents.restore(tenant, path, number, expected_revision=revision,
                                                       by=_by(author)), _show_document)

    @docs.command("search")
    def search(tenant: TenantOption, query: Annotated[str, typer.Argument(help="Words to look for.")],
               limit: Annotated[int, typer.Option("--limit")] = 10, db: DbOption = None,
               as_json: JsonOption = False) -> None:
        """Passages of documents for a query, citing path, revision and lines."""
        run(db, as_json, lambda m: m.documents.search(tenant, query, limit=limit), _show_hits, create=False)

    @docs.command("erase")
    def erase(tenant: TenantOption, path: PathArg, db: DbOption = None, as_json: JsonOption = False) -> None:
        """Erase every document that ever had PATH: all revisions and index entries."""
        run(db, as_json, lambda m: {"revisions_removed": m.documents.erase(tenant, path)},
            lambda r: console.print(f"erased {r['revisions_removed']} revision(s)"))

    @docs.command("export")
    def export_command(tenant: TenantOption, directory: Annotated[Path, typer.Argument(metavar="DIR")],
                       db: DbOption = None, as_json: JsonOption = False) -> None:
        """Write the tenant's documents as files under DIR (with a manifest for import)."""
        from ..documents.sync import export

        _apart_from_database(db, directory, as_json)
        run(db, as_json, lambda m: export(m.documents, tenant, directory), _show_export, create=False)

    @docs.command("import")
    def import_command(
        tenant: TenantOption, directory: Annotated[Path, typer.Argument(metavar="DIR")],
        delete: Annotated[bool, typer.Option("--delete", help="Delete documents whose files were removed.")]
        = False,
        author: AuthorOption = "import", db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Bring edits made under DIR back; files whose document moved on are conflicts (exit 5)."""
        from ..boundary import status_of
        from ..documents.sync import import_directory

        _apart_from_database(db, directory, as_json)
        with open_memory(db, as_json) as memory:
            try:
                result = import_directory(memory.documents, tenant, directory, delete=delete, author=author)
            except SgamError as exc:
                fail(exc, as_json)
                return
        if as_json:
            print_json(result)
        else:
            _show_import(result)
        if result.conflicts:
            raise typer.Exit(status_of("conflict").exit_status)


def _show_export(result: ExportResult) -> None:
    console.print(f"exported {result.files} document(s) to {escape(result.directory)}")
    for path in result.skipped:
        console.print(f"skipped {escape(path)}: its file would be the export's manifest (rename the document)")


def _number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValidationError("diff", text, "revisions are numbers: OLD or OLD:NEW") from None

