"""``sgam search``, ``sgam recall`` and ``sgam eval locomo``: thin skins over the library."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .._core.errors import SgamError, ValidationError
from .._core.values import MAX_QUERY_LIMIT
from .ledger import PurposeOption
from .output import DbOption, JsonOption, TenantOption, console, errors, fail, print_json, run
from .tables import print_pairs

if TYPE_CHECKING:
    from .._core.model import IndexStatus
    from ..memory.facade import Memory
    from ..recall import RecallResult
    from ..search.embedders import Embedder

PRESET_NAMES = ("default", "hybrid", "keyword", "recent", "vector")
"""``sgam.search.PRESETS`` by name, spelled out so the help text does not load search."""
ConfigOption = Annotated[str, typer.Option("--config", help=f"Search preset: {', '.join(PRESET_NAMES)}.")]
EmbedderOption = Annotated[
    str | None,
    typer.Option("--embedder", help="model2vec:/path, sentence-transformers:name or openai:model@dim "
                 "(default: $SGAM_EMBEDDER; none = keyword search only)."),
]
CvOption = Annotated[
    bool,
    typer.Option("--cv", help="Leave-one-out cross-validation: each held-out conversation (instance block) "
                 "is scored with the settings chosen on the others; reports mean and spread."),
]


def _embedder(spec: str | None) -> Embedder | None:
    from ..search import embedder_from_env, load_embedder

    return load_embedder(spec) if spec else embedder_from_env()


def _run(db: str | None, as_json: bool, spec: str | None, call: Callable[[Memory], Any],
         show: Callable[[Any], None], encode: Callable[[Any], Any] | None = None) -> None:
    """Like ``output.run`` for a read (it never creates a database), with the embedder
    chosen (and loaded once) before opening."""
    try:
        embedder = _embedder(spec)
    except SgamError as exc:
        fail(exc, as_json)
        return
    run(db, as_json, call, show, create=False, encode=encode, embedder=embedder)


def _show_recall(result: RecallResult) -> None:
    console.print(result.text, highlight=False, markup=False, soft_wrap=True)
    console.print(f"[dim]{result.tokens} of {result.budget} tokens, {len(result.items)} items, "
                  f"{result.dropped} left out[/dim]")


def _show_hits(hits: Any) -> None:
    for hit in hits:
        console.print(f"{hit.score:.3f}  {hit.episode_id}  {hit.speaker or '-'}: {hit.text}",
                      highlight=False, markup=False)


def _show_index(found: IndexStatus) -> None:
    if found.searching is None:
        searching = "none (keyword search only)"
    else:
        searching = found.searching if found.recorded else f"{found.searching} (this process's own embedder)"
    pairs = [("searching with", searching)]
    if found.building is not None:
        pairs.append(("building", f"{found.building} since {found.building_since:%Y-%m-%d %H:%M:%S}"))
    if found.switched_at is not None:
        pairs.append(("switched at", f"{found.switched_at:%Y-%m-%d %H:%M:%S}"))
    pairs += [("episodes", f"{found.episodes_embedded} of {found.episodes} embedded"),
              ("facts", f"{found.facts_embedded} of {found.facts} embedded"),
              ("document chunks", f"{found.chunks_embedded} of {found.chunks} embedded")]
    print_pairs(pairs)


class IndexProgress:
    """A Rich progress bar on stderr over the rows a re-embedding embeds."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TimeRemainingColumn(), console=errors)
        self._task = self._progress.add_task("embedding", total=None)
        self._progress.start()

    def show(self, found: IndexStatus) -> None:
        self._progress.update(self._task, description=f"embedding with {found.building or found.searching}",
                              total=found.episodes + found.facts + found.chunks,
                              completed=found.episodes_embedded + found.facts_embedded + found.chunks_embedded)

    def close(self) -> None:
        self._progress.stop()


def register(app: typer.Typer) -> None:
    @app.command("recall")
    def recall_command(
        tenant: TenantOption,
        question: Annotated[str, typer.Argument(help="What the agent wants to know.")],
        at: Annotated[str | None, typer.Option("--at", help="Valid time (RFC 3339 with zone); default now.")] = None,
        known_at: Annotated[str | None, typer.Option(
            "--known-at", help="Transaction time: recall as the memory stood then (reproducible).")] = None,
        budget: Annotated[int, typer.Option("--budget", help="Token budget of the context.")] = 1000,
        config: ConfigOption = "default", embedder: EmbedderOption = None,
        purpose: PurposeOption = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Cited context for a question: exact state first, then evidence, within a budget."""
        from ..boundary import recall_json

        _run(db, as_json, embedder,
             lambda memory: memory.recall(tenant, question, at=at, known_at=known_at, budget=budget, config=config,
                                          purpose=purpose),
             _show_recall, recall_json)

    @app.command("search")
    def search_command(
        tenant: TenantOption,
        question: Annotated[str, typer.Argument(help="Words to look for in episodes.")],
        limit: Annotated[int, typer.Option("--limit", min=1, max=MAX_QUERY_LIMIT, help="How many episodes.")] = 10,
        config: ConfigOption = "default", embedder: EmbedderOption = None,
        purpose: PurposeOption = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Evidence search over episodes (keyword + vector, fused)."""
        _run(db, as_json, embedder,
             lambda memory: memory.search(tenant, question, limit=limit, config=config, purpose=purpose), _show_hits)

    @app.command("index")
    def index_command(
        tenant: TenantOption, embedder: EmbedderOption = None,
        batch: Annotated[int, typer.Option("--batch", min=1, max=MAX_QUERY_LIMIT,
                                           help="Rows embedded per transaction.")] = 1000,
        status: Annotated[bool, typer.Option("--status", help="Only show which embedder search uses and how far "
                                             "the one being built is.")] = False,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Build the embedder's vectors beside those search uses, switch search to them, remove the old."""
        if status:
            run(db, as_json, lambda memory: memory.index_status(tenant), _show_index, create=False)
            return
        spec = embedder or os.environ.get("SGAM_EMBEDDER", "").strip()
        if not spec:
            fail(ValidationError("embedder", None, "sgam index needs an embedder: give --embedder (e.g. "
                                 "model2vec:/path/to/model) or set SGAM_EMBEDDER; keyword search needs no index"),
                 as_json)
        bar = None if as_json else IndexProgress()
        try:
            run(db, as_json, lambda memory: memory.reembed(tenant, spec, batch=batch,
                                                           progress=None if bar is None else bar.show),
                _show_index, create=False)
        finally:
            if bar is not None:
                bar.close()

    eval_app = typer.Typer(help="Retrieval evaluations.", no_args_is_help=True)
    app.add_typer(eval_app, name="eval")

    @eval_app.command("locomo")
    def locomo_command(
        path: Annotated[Path, typer.Argument(help="A LoCoMo JSON file (upstream locomo10.json format).")],
        config: ConfigOption = "default", embedder: EmbedderOption = None, as_json: JsonOption = False,
        db: Annotated[str | None, typer.Option("--db", help="Store to ingest into, one tenant per "
                                               "conversation (default: a fresh SQLite file each).")] = None,
        cv: CvOption = False,
    ) -> None:
        """Turn and session recall of sgam search beside BM25 alone and vectors alone on LoCoMo questions."""
        from ..eval import evaluate_locomo

        try:
            result = evaluate_locomo(path, embedder=_embedder(embedder), config=config, db=db, cv=cv,
                                     progress=None if as_json else lambda line: errors.print(line))
        except SgamError as exc:
            fail(exc, as_json)
            return
        if as_json:
            print_json(result)
        else:
            show_report(result)

    @eval_app.command("longmemeval")
    def longmemeval_command(
        path: Annotated[Path, typer.Argument(help="A LongMemEval JSON file (longmemeval_s / _m / _oracle format).")],
        config: ConfigOption = "default", embedder: EmbedderOption = None, as_json: JsonOption = False,
        db: Annotated[str | None, typer.Option("--db", help="Store to ingest into, one tenant per "
                                               "instance (default: a fresh SQLite file each).")] = None,
        cv: CvOption = False,
    ) -> None:
        """Session and turn recall of sgam search beside BM25 alone and vectors alone on LongMemEval."""
        from ..eval import evaluate_longmemeval

        try:
            result = evaluate_longmemeval(path, embedder=_embedder(embedder), config=config, db=db, cv=cv,
                                          progress=None if as_json else lambda line: errors.print(line))
        except SgamError as exc:
            fail(exc, as_json)
            return
        if as_json:
            print_json(result)
        else:
            show_report(result)


def show_report(result: dict[str, Any]) -> None:
    """An evaluation report for people: one ``figure  value`` line per number, the
    nested names joined by dots (``per_category.temporal.turn_recall_any.10``)."""
    print_pairs([(name, str(value)) for name, value in _flatten(result)])


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, dict):
        return [pair for key, item in value.items() for pair in _flatten(item, f"{prefix}{key}.")]
    if isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        return [pair for index, item in enumerate(value) for pair in _flatten(item, f"{prefix}{index}.")]
    return [(prefix.rstrip("."), value)]
