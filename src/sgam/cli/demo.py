"""``sgam demo``: the passport-deadline story, told by a naive text memory and by sgam."""

from __future__ import annotations

import itertools
import json
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from .._core.errors import SgamError
from .._core.model import Assertion, Episode
from .._core.time import parse_timestamp
from .demo_extraction import demo_extraction
from .output import console, open_memory
from .tables import compact_time, new_table
from .timeline import timeline_table

if TYPE_CHECKING:
    from ..memory.facade import Memory

TENANT = "acme"
KEY = ("mira", "passport_deadline")
STORY: list[tuple[str, str, str, str]] = [
    # clock, episode id, occurred at, text
    ("2026-06-01T09:00:05Z", "e1", "2026-06-01T09:00:00Z",
     "Mira prefers concise answers. Her passport deadline is 2026-07-15."),
    ("2026-06-03T10:00:05Z", "e2", "2026-06-03T10:00:00Z",
     "Mira corrected the deadline. It is now 2026-06-30."),
    ("2026-06-04T08:00:00Z", "e0", "2026-05-30T08:00:00Z",
     "Mira's passport deadline is 2026-08-01."),
]
VALUES = {"e1": "2026-07-15", "e2": "2026-06-30", "e0": "2026-08-01"}
QUESTION = "When is Mira's passport deadline?"


class _StoryClock:
    def __init__(self) -> None:
        self.now = parse_timestamp(STORY[0][0], "clock")

    def __call__(self) -> datetime:
        return self.now


def naive_text_memory(episodes: list[Episode], question: str) -> list[tuple[int, Episode]]:
    """What a summary/vector store of old notes does: rank texts by overlap, newest wins ties."""
    words = set(re.findall(r"\w+", question.lower()))
    scored = [(len(words & set(re.findall(r"\w+", e.text.lower()))), e) for e in episodes]
    return sorted(scored, key=lambda pair: (-pair[0], pair[1].recorded_at))


def _cite(tenant: str, found: Assertion | None, memory: Memory) -> str:
    if found is None:
        return "nothing held"
    episode = memory.episode(tenant, found.source)
    quote = f' — "{episode.text}"' if episode else ""
    return (f"[bold]{json.dumps(found.value)}[/bold] valid {compact_time(found.valid_from)} → "
            f"{compact_time(found.valid_to)}, "
            f"source {found.source}{quote}")


def heading(title: str) -> None:
    console.print(Rule(title), width=console.drawing_width())


def story_tenant(memory: Memory) -> str:
    """``acme``, or ``acme-2``, ``acme-3``… when the database already holds an earlier run:
    the story erases e2, and an erased id stays reserved, so a run never reuses a tenant."""
    for run in itertools.count(1):
        tenant = TENANT if run == 1 else f"{TENANT}-{run}"
        if not memory.episodes(tenant, limit=1) and not memory.audit(tenant, limit=1):
            return tenant
    raise AssertionError("unreachable")


def tell_story(memory: Memory) -> None:
    tenant = story_tenant(memory)
    if tenant != TENANT:
        console.print(f"This database already holds an earlier run of the story: this one is tenant {tenant}.",
                      style="dim", highlight=False)
    _tell(memory, tenant)


def _tell(memory: Memory, tenant: str) -> None:
    clock = _StoryClock()
    memory.clock = clock
    clocks = {episode_id: clock_at for clock_at, episode_id, _, _ in STORY}
    heading("1. Two messages arrive, a week apart: a model proposes, policy decides")
    console.print("The scripted model reads each raw message and proposes updates with evidence; "
                  "sgam checks each one and commits what passes.", style="dim")

    def advance(episode_id: str) -> None:
        clock.now = parse_timestamp(clocks[episode_id], "clock")

    demo_extraction(memory, tenant, echo=lambda line: console.print(line, markup=False, highlight=False),
                    before_episode=advance)

    heading("2. What is Mira's passport deadline?")
    clock.now = parse_timestamp("2026-06-04T00:00:00Z", "clock")
    naive = naive_text_memory(memory.episodes(tenant), QUESTION)
    table = new_table("naive text memory (top matches)", "sgam ledger (current state)")
    table.add_row(
        Text.from_markup("\n".join(f"[{'red' if VALUES[e.id] != '2026-06-30' else 'green'}]{e.text}[/] "
                                   f"({score} words match)" for score, e in naive)),
        Text.from_markup(_cite(tenant, memory.get(tenant, *KEY), memory)),
    )
    console.print(table)
    console.print("The text memory returns the stale July 15 beside June 30 and cannot say which holds; "
                  "the ledger answers with the current value and its source.\n")

    heading("3. Reads at other instants")
    console.print("What held on June 2 (valid time)?")
    console.print("   ", _cite(tenant, memory.get(tenant, *KEY, at="2026-06-02T00:00:00Z"), memory))
    console.print("What did we believe on June 2 about today (transaction time)?")
    console.print("   ", _cite(tenant, memory.get(tenant, *KEY, known_at="2026-06-02T00:00:00Z"), memory))

    heading("4. A delayed extraction of an older message")
    clock_at, episode_id, at, text = STORY[2]
    clock.now = parse_timestamp(clock_at, "clock")
    memory.add_episode(tenant, episode_id, at, text, speaker="mira")
    result = memory.write(tenant, *KEY, VALUES[episode_id], at, episode_id)
    console.print(f"{at}  {episode_id}: {text}\n    → write {VALUES[episode_id]}: {result.effect.value}, "
                  f"ends where e1 starts")
    console.print("Current:", _cite(tenant, memory.get(tenant, *KEY), memory))
    console.print("May 31:  ", _cite(tenant, memory.get(tenant, *KEY, at="2026-05-31T00:00:00Z"), memory))

    heading("5. Equal start, other value: refused, never overwritten")
    try:
        memory.write(tenant, *KEY, "2026-09-09", "2026-06-03T10:00:00Z", "e2")
    except SgamError as exc:
        console.print(f"[yellow]{type(exc).__name__}[/yellow]: {exc}")

    heading("6. The timeline of the key")
    console.print(timeline_table("mira.passport_deadline", memory.versions(tenant, *KEY)))

    heading("7. Erasure: forget episode e2")
    memory.forget_episode(tenant, "e2")
    console.print("Current after erasure:", _cite(tenant, memory.get(tenant, *KEY), memory))
    console.print(timeline_table("mira.passport_deadline after forgetting e2", memory.versions(tenant, *KEY)))


@contextmanager
def _demo_memory(db: str | None) -> Iterator[Memory]:
    if db is not None:
        with open_memory(db) as memory:
            yield memory
        return
    with tempfile.TemporaryDirectory(prefix="sgam-demo-") as folder, open_memory(
        f"sqlite:///{Path(folder) / 'demo.db'}"
    ) as memory:
        yield memory


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(
        db: Annotated[str | None, typer.Option("--db", help="Keep the demo ledger in this database "
                                               "(default: a temporary SQLite file).")] = None,
    ) -> None:
        """Replay the passport-deadline story on the embedded SQLite store."""
        console.print(Panel.fit("sgam demo — the passport deadline", style="bold"))
        with _demo_memory(db) as memory:
            tell_story(memory)
