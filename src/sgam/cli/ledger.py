"""Ledger commands: episodes, writes, erasure and reads."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .._core.model import Assertion
from .browse import LimitOption, fetch_limited
from .inputs import TEXT_HELP, parse_value, read_text
from .output import DbOption, JsonOption, TenantOption, console, errors, run
from .tables import cell, compact_time, exact_time, json_value, print_pairs, print_record, print_table

if TYPE_CHECKING:
    from .._core.model import Episode, ErasurePreview, ForgetResult, Reachable, SubjectName
    from .._core.schema import AttributeSchema
    from ..memory.facade import Memory

LONG_TEXT = 2000

ValueArg = Annotated[str, typer.Argument(help="The value as JSON: 12345, true, [1, 2] and \"12\" are JSON; text "
                                              "that is not JSON (Paris, 01234, 2026-07-15) is a string. --string "
                                              "keeps it a string.")]
StringOption = Annotated[bool, typer.Option("--string", help="Store the value as the string typed, even when it "
                                                             "reads as JSON (12345, true, null).")]
AtOption = Annotated[str | None, typer.Option("--at", help="Valid time (RFC 3339 with zone); default now.")]
KnownAtOption = Annotated[
    str | None, typer.Option("--known-at", help="Transaction time (RFC 3339 with zone); default now.")
]
PurposeOption = Annotated[
    str | None, typer.Option("--purpose", help="The purpose timeline (reads fall back to the general one).")
]


def show_assertion(found: Assertion | None, key: str = "the key") -> None:
    if found is None:
        console.print(f"nothing holds for {key}", highlight=False, markup=False)
        return
    print_pairs([
        ("key", f"{found.subject}.{found.attribute}"),
        ("value", json_value(found.value)),
        ("valid", f"{exact_time(found.valid_from)} -> {exact_time(found.valid_to)}"),
        ("recorded", f"{exact_time(found.recorded_at)} -> {exact_time(found.superseded_at, 'current')}"),
        ("source", found.source),
        ("supersedes", cell(found.supersedes)),
        ("id", str(found.id)),
    ])


def show_history(found: list[Assertion]) -> None:
    """One key's assertions: the key is the title, each version a row."""
    _show_key(found, "value", "no assertions")


def _show_key(found: list[Assertion], value: str, empty: str) -> None:
    title = f"{found[0].subject}.{found[0].attribute}" if found else None
    print_table(
        (value, "valid from", "valid to", "source", "recorded"),
        [(json_value(a.value), compact_time(a.valid_from), compact_time(a.valid_to), a.source,
          compact_time(a.recorded_at)) for a in found],
        title=title, empty=empty,
    )


def show_assertions(found: list[Assertion]) -> None:
    print_table(
        ("subject", "attribute", "value", "valid from", "valid to", "source", "recorded"),
        [(a.subject, a.attribute, json_value(a.value), compact_time(a.valid_from), compact_time(a.valid_to),
          a.source, compact_time(a.recorded_at)) for a in found],
        empty="no assertions",
    )


def displayed(memory: Memory, found: Any) -> Any:
    """Assertions (one, a list, or none) with each subject shown by its display name."""
    items = [found] if isinstance(found, Assertion) else found
    if not isinstance(items, list) or not items:
        return found
    tenant = items[0].tenant
    names = memory.display_names(tenant, [a.subject for a in items])
    shown = [replace(a, subject=names.get(a.subject, a.subject)) for a in items]
    return shown[0] if isinstance(found, Assertion) else shown


def show_members(found: list[Assertion]) -> None:
    """A set's members: the key is the title, each member a row."""
    _show_key(found, "member", "no members")


def show_names(found: list[SubjectName]) -> None:
    """A subject's page of names: one row per alias step, ended ones included."""
    print_table(("name", "means", "since", "until", "decided by"),
                [(n.name, n.subject, exact_time(n.since), exact_time(n.until), n.decided_by or "") for n in found],
                empty="no aliases")


def show_named(found: SubjectName) -> None:
    state = "now means" if found.until is None else "no longer means"
    console.print(f"{found.name} {state} {found.subject}", highlight=False, markup=False)


def show_subjects(found: list[str], title: str) -> None:
    print_table(("subject",), [(subject,) for subject in found], title=title, empty="no subjects")


def _names(memory: Memory, tenant: str, subjects: list[str]) -> list[str]:
    """Subject ids as people read them: the display name, with the id when it differs."""
    names = memory.display_names(tenant, subjects) if subjects else {}
    return [s if names.get(s, s) == s else f"{names[s]} ({s})" for s in subjects]


def _holds_anything(memory: Memory, tenant: str) -> bool:
    """Whether the tenant has recorded anything at all (a mistyped ``--tenant`` has not):
    a fact, an episode, a document or a consent statement, readable or hidden by consent."""
    return bool(memory.query(tenant, all_times=True, limit=1) or memory.episodes(tenant, limit=1)
                or memory.documents.listing(tenant, depth=1, hidden=True) or memory.consents(tenant))


def show_result(result: Any) -> None:
    console.print(f"{result.effect.value} (operation {result.operation_id})", highlight=False)
    if result.assertion is not None:
        show_assertion(result.assertion)


def show_episode(episode: Episode) -> None:
    print_pairs(episode_pairs(episode))


def episode_pairs(episode: Episode) -> list[tuple[str, str]]:
    text = episode.text if len(episode.text) <= LONG_TEXT else f"<{len(episode.text)} characters; --json shows them>"
    return [
        ("episode", episode.id), ("at", exact_time(episode.at)), ("recorded", exact_time(episode.recorded_at)),
        ("speaker", cell(episode.speaker)), ("kind", episode.kind), ("session", cell(episode.session)),
        ("metadata", json_value(episode.metadata)), ("text", text),
    ]


def show_declared(schema: AttributeSchema) -> None:
    print_pairs([
        ("attribute", schema.attribute), ("type", cell(schema.value_type)), ("cardinality", schema.cardinality.value),
        ("memory type", cell(schema.memory_type)),
        ("sensitive", cell(schema.sensitive)), ("schema version", str(schema.schema_version)),
        *([("not of the type", f"{schema.not_of_type}: {schema.note}")] if schema.not_of_type else []),
    ])


def show_forgotten(result: ForgetResult) -> None:
    print_record("erased", result)


def show_preview(preview: ErasurePreview) -> None:
    named = preview.target
    if preview.means not in (None, preview.target):
        named += f" (a name of {preview.means})"
    console.print(f"erasing {preview.kind} {named} would remove {preview.operations} recorded operation"
                  f"{'' if preview.operations == 1 else 's'} and {preview.episodes} episode"
                  f"{'' if preview.episodes == 1 else 's'}; nothing was erased", markup=False, highlight=False)

    def held(versions: list[Assertion], missing: str) -> str:
        return "\n".join(f"{json_value(v.value)} [{compact_time(v.valid_from)} → {compact_time(v.valid_to)})"
                         for v in versions) or missing

    print_table(("key", "now", "after the erasure"),
                [(f"{k.subject}.{k.attribute}", held(k.before, "-"), held(k.after, "nothing")) for k in preview.keys],
                title="keys whose timelines change", empty="no key changes")


def register(app: typer.Typer) -> None:
    @app.command("episode")
    def episode(
        tenant: TenantOption,
        id: Annotated[str, typer.Argument(help="Your id of the episode, unique in the tenant.")],
        at: Annotated[str, typer.Argument(help="When it happened (RFC 3339 with zone).")],
        text: Annotated[str, typer.Argument(help=TEXT_HELP)],
        speaker: Annotated[str | None, typer.Option(help="Who said or produced it.")] = None,
        kind: Annotated[str, typer.Option(help="message, tool_result, event or document.")] = "message",
        session: Annotated[str | None, typer.Option(help="Conversation or run it belongs to.")] = None,
        retention: Annotated[str, typer.Option("--retention", help="Retention class of the episode.")] = "default",
        derived_from: Annotated[list[str] | None, typer.Option(
            "--derived-from", help="An episode it was made from (repeat for several).")] = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Record a raw episode (message, tool result or event)."""
        run(db, as_json, lambda m: m.add_episode(tenant, id, at, read_text(text), speaker=speaker, kind=kind,
                                                 session=session, retention=retention,
                                                 derived_from=derived_from), show_episode)

    @app.command("declare")
    def declare(
        tenant: TenantOption,
        attribute: Annotated[str, typer.Argument()],
        value_type: Annotated[str, typer.Argument(metavar="TYPE", help="string, integer, number, boolean, "
                                                  "date, datetime, object, array or subject (a relation).")],
        memory_type: Annotated[str | None, typer.Option(help="Memory type of the attribute.")] = None,
        sensitive: Annotated[bool, typer.Option(help="Mark the attribute sensitive.")] = False,
        cardinality: Annotated[str | None, typer.Option(
            help="one (a value at a time) or many (a set of members); default: keep what it had.")] = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Declare the value type (and cardinality) of an attribute for the tenant."""
        run(db, as_json, lambda m: m.declare(tenant, attribute, value_type, memory_type=memory_type,
                                             sensitive=sensitive, cardinality=cardinality), show_declared)

    @app.command("write")
    def write(
        tenant: TenantOption,
        subject: Annotated[str, typer.Argument()],
        attribute: Annotated[str, typer.Argument()],
        value: ValueArg,
        valid_from: Annotated[str, typer.Option("--valid-from", help="When the value starts to hold.")],
        source: Annotated[str, typer.Option("--source", help="Episode id that backs the fact.")],
        memory_type: Annotated[str | None, typer.Option(help="Memory type (default: declared or fact).")] = None,
        confidence: Annotated[float, typer.Option(help="From 0 to 1.")] = 1.0,
        purpose: PurposeOption = None,
        expires_at: Annotated[str | None, typer.Option(
            "--expires-at", help="Deadline of this write (RFC 3339 with zone): erased then.")] = None,
        string: StringOption = False, db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Assert SUBJECT.ATTRIBUTE = VALUE from --valid-from on."""
        run(db, as_json, lambda m: m.write(tenant, subject, attribute, parse_value(value, string=string), valid_from,
                                           source,
                                           memory_type=memory_type, confidence=confidence, purpose=purpose,
                                           expires_at=expires_at), show_result)

    @app.command("retract")
    def retract(
        tenant: TenantOption,
        subject: Annotated[str, typer.Argument()],
        attribute: Annotated[str, typer.Argument()],
        at: Annotated[str, typer.Option("--at", help="When the value stopped holding.")],
        source: Annotated[str, typer.Option("--source", help="Episode id that says so.")],
        purpose: PurposeOption = None,
        value: Annotated[str | None, typer.Option(
            "--value", help="The member that stopped, for a set (JSON; a bare word is a string).")] = None,
        string: StringOption = False, db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Say the value (of a set: the member --value) holding at --at stopped holding then."""
        member = None if value is None else parse_value(value, string=string)
        run(db, as_json, lambda m: m.retract(tenant, subject, attribute, at, source, purpose=purpose, value=member),
            show_result)

    @app.command("correct")
    def correct(
        tenant: TenantOption,
        subject: Annotated[str, typer.Argument()],
        attribute: Annotated[str, typer.Argument()],
        value: ValueArg,
        valid_from: Annotated[str, typer.Option("--valid-from", help="Start of the assertion to correct.")],
        source: Annotated[str, typer.Option("--source", help="Episode id that backs the correction.")],
        purpose: PurposeOption = None,
        string: StringOption = False, db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Correct the value of the assertion starting at --valid-from (history is kept)."""
        run(db, as_json, lambda m: m.correct(tenant, subject, attribute, valid_from, parse_value(value, string=string),
                                             source, purpose=purpose), show_result)

    @app.command("forget")
    def forget(
        tenant: TenantOption,
        subject: Annotated[str | None, typer.Option("--subject", help="Erase every assertion of it.")] = None,
        episode: Annotated[str | None, typer.Option("--episode", help="Erase it and all it sourced.")] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Show exactly what would go; erase nothing.")] = False,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Erase a subject or an episode everywhere, as if never recorded.

        --dry-run: the erasure runs and is rolled back, showing what it would remove."""
        if (subject is None) == (episode is None):
            raise typer.BadParameter("give exactly one of --subject or --episode")
        if dry_run:
            run(db, as_json, lambda m: m.preview_forget(tenant, subject=subject, episode=episode), show_preview,
                create=False)
        elif subject is not None:
            run(db, as_json, lambda m: m.forget_subject(tenant, subject), show_forgotten)
        else:
            run(db, as_json, lambda m: m.forget_episode(tenant, episode or ""), show_forgotten)

    @app.command("get")
    def get(
        tenant: TenantOption,
        subject: Annotated[str, typer.Argument()],
        attribute: Annotated[str, typer.Argument()],
        at: AtOption = None, known_at: KnownAtOption = None, purpose: PurposeOption = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """What holds for SUBJECT.ATTRIBUTE at --at, as known at --known-at (of a set: its members)."""

        def call(memory: Memory) -> Assertion | list[Assertion] | None:
            found = memory.lookup(tenant, subject, attribute, at=at, known_at=known_at, purpose=purpose)
            if found is None and not _holds_anything(memory, tenant):
                errors.print(f"tenant {tenant!r} has recorded nothing: check --tenant", highlight=False,
                             markup=False)
            return found

        def show(found: Assertion | list[Assertion] | None) -> None:
            if isinstance(found, list):
                show_members(found)
            else:
                show_assertion(found, f"{subject}.{attribute}")

        run(db, as_json, call, show, create=False, for_people=displayed)

    @app.command("linked")
    def linked(
        tenant: TenantOption,
        attribute: Annotated[str, typer.Argument(help="A relation (an attribute of type subject).")],
        to: Annotated[str, typer.Argument(help="The subject its value names.")],
        at: AtOption = None, known_at: KnownAtOption = None, limit: LimitOption = 100,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Every subject whose ATTRIBUTE names TO at --at, as known at --known-at."""
        run(db, as_json, lambda m: fetch_limited(limit, lambda n: m.linked(tenant, attribute, to, at=at,
                                                                          known_at=known_at, limit=n), "subjects"),
            lambda found: show_subjects(found, f"{attribute} -> {to}"), create=False,
            for_people=lambda m, found: _names(m, tenant, found))

    @app.command("reachable")
    def reachable(
        tenant: TenantOption,
        start: Annotated[str, typer.Argument(metavar="FROM", help="The subject the walk starts from.")],
        attributes: Annotated[list[str], typer.Option(
            "--attribute", help="A relation to follow outward (repeat for several).")],
        depth: Annotated[int, typer.Option(help="Steps, from 1 to 10.")] = 1,
        fan_out: Annotated[int, typer.Option("--fan-out", help="At most this many subjects.")] = 1000,
        at: AtOption = None, known_at: KnownAtOption = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Every subject reached from FROM along the --attribute relations within --depth steps."""

        def show(found: Reachable) -> None:
            show_subjects(found.subjects, f"reachable from {found.start} within {depth}")
            if found.cut:
                errors.print(f"cut at {len(found.subjects)} subjects (raise --fan-out, or walk fewer steps)",
                             highlight=False, markup=False)

        run(db, as_json, lambda m: m.reachable(tenant, start, attributes, depth=depth, at=at, known_at=known_at,
                                               fan_out=fan_out), show, create=False,
            for_people=lambda m, found: replace(found, subjects=_names(m, tenant, found.subjects)))

    @app.command("alias")
    def alias(
        tenant: TenantOption,
        name: Annotated[str, typer.Argument(help="The other name, e.g. MJ.")],
        subject: Annotated[str, typer.Argument(help="The subject it names from now on, e.g. Mira Jansen.")],
        decided_by: Annotated[str | None, typer.Option("--by", help="Whose decision it is (shown with the names).")]
        = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """From now on NAME is another name of SUBJECT (a NAME with facts of its own merges)."""
        run(db, as_json, lambda m: m.alias(tenant, name, subject, decided_by=decided_by or "cli"),
            show_named, create=False)

    @app.command("unalias")
    def unalias(
        tenant: TenantOption, name: Annotated[str, typer.Argument(help="An alias.")],
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """From now on NAME is its own subject again, with the facts recorded naming it."""
        run(db, as_json, lambda m: m.unalias(tenant, name),
            show_named, create=False)

    @app.command("names")
    def names(
        tenant: TenantOption, subject: Annotated[str, typer.Argument()],
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """SUBJECT's page of names: every alias that joined a name to it, since when, by whom."""
        run(db, as_json, lambda m: m.names(tenant, subject), show_names, create=False)

    @app.command("collisions")
    def collisions(tenant: TenantOption, db: DbOption = None, as_json: JsonOption = False) -> None:
        """Stored subject ids left apart because several fold into one id."""
        run(db, as_json, lambda m: [{"subject": s, "stored": stored} for s, stored in m.subject_collisions(tenant)],
            lambda found: print_table(("subject id", "stored as"), [(f["subject"], f["stored"]) for f in found],
                                      empty="no collisions"), create=False)

    @app.command("members")
    def members(
        tenant: TenantOption,
        subject: Annotated[str, typer.Argument()],
        attribute: Annotated[str, typer.Argument()],
        at: AtOption = None, known_at: KnownAtOption = None, purpose: PurposeOption = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """The members of the set SUBJECT.ATTRIBUTE holding at --at, as known at --known-at."""
        run(db, as_json, lambda m: m.members(tenant, subject, attribute, at=at, known_at=known_at, purpose=purpose),
            show_members, create=False, for_people=displayed)

    @app.command("history")
    def history(
        tenant: TenantOption,
        subject: Annotated[str, typer.Argument()],
        attribute: Annotated[str, typer.Argument()],
        known_at: KnownAtOption = None, purpose: PurposeOption = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Every assertion of the key by valid time, as known at --known-at."""
        run(db, as_json, lambda m: m.history(tenant, subject, attribute, known_at=known_at, purpose=purpose),
            show_history, create=False, for_people=displayed)

    @app.command("query")
    def query(
        tenant: TenantOption,
        subject: Annotated[str | None, typer.Option(help="Only this subject.")] = None,
        attribute: Annotated[str | None, typer.Option(help="Only this attribute.")] = None,
        memory_type: Annotated[str | None, typer.Option(help="Only this memory type.")] = None,
        at: AtOption = None, known_at: KnownAtOption = None,
        all_times: Annotated[bool, typer.Option("--all-times", help="Every valid interval, not one instant.")] = False,
        limit: LimitOption = 100,
        purpose: PurposeOption = None,
        db: DbOption = None, as_json: JsonOption = False,
    ) -> None:
        """Assertions of the tenant, filtered."""
        run(db, as_json, lambda m: fetch_limited(limit, lambda n: m.query(
            tenant, subject=subject, attribute=attribute, memory_type=memory_type, at=at, known_at=known_at,
            all_times=all_times, limit=n, purpose=purpose), "assertions"), show_assertions, create=False,
            for_people=displayed)
