"""Every CLI command, fuzzed on both backends: it ends with one of the documented exit
statuses and a message, never a traceback, and a command that fails changes no table.

``replay`` has its own fuzz test (files, not arguments); ``serve`` and ``mcp`` run until
stopped; tests/server drives them over HTTP and MCP. ``worker`` never gets
``--forever``. Options are drawn as text, as a shell passes them (lone surrogates
included: that is how undecodable bytes of ``argv`` reach Python).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import typer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sgam.cli import app
from tests.conftest import Store

from .strategies import CALLS_PER_EXAMPLE, EXAMPLES, TIMES, odd_text, table_hashes
from .test_fuzz_memory import Fuzzed

EXIT_STATUSES = set(range(8))
SKIPPED = {"replay", "eval locomo", "serve", "mcp"}
"""``serve`` and ``mcp`` run a server until stopped; tests/server drives them over the wire."""
NEVER = {"--forever"}
MAY_CHANGE_ON_FAILURE = {"remember", "extract", "demo", "compact"}
"""``remember`` and ``extract`` record a failed extraction by design; ``demo`` is a story of
many calls, each its own transaction; ``compact`` changes no row but rewrites files."""

PLAUSIBLE: dict[str, list[str]] = {
    "tenant": ["acme", "globex"], "id": ["e1", "e2", "e9"], "episode": ["e1", "e2", "e9"],
    "source": ["e1", "e2"], "subject": ["mira", "zoë"], "attribute": ["city", "drink"],
    "value": ['"Paris"', "3", "[1]", "{}", "nope"], "at": TIMES, "valid_from": TIMES, "known_at": TIMES,
    "text": ["mira lives in Paris."], "question": ["where does mira live?"], "limit": ["1", "5", "0", "-1"],
    "budget": ["10", "500"], "held_id": ["1", "2"], "extraction_id": ["1", "2"], "batch": ["1", "4"],
    "lease": ["30", "300"], "max_attempts": ["1", "3"], "config": ["default", "keyword"],
    "value_type": ["string", "integer"], "status": ["open", "confirmed"], "wait": ["0", "0.1"],
    "confidence": ["0.5", "1"], "kind": ["message"], "speaker": ["ann"], "session": ["s1"],
}
ONLY_PLAUSIBLE = {("worker", "batch"), ("worker", "lease"), ("extractions show", "extraction_id")}
"""Arguments the command itself has yet to check fully (numbers past SQLite's integers,
infinite leases); they are fuzzed with ordinary values only."""


def commands() -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    group = typer.main.get_command(app)
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        children = getattr(command, "commands", None)
        for full, cmd in ([(f"{name} {c}", children[c]) for c in children] if children else [(name, command)]):
            if full not in SKIPPED:
                found[full] = cmd
    return found


COMMANDS = commands()


@st.composite
def invocations(draw: st.DrawFn, db: str) -> tuple[str, list[str]]:
    name = draw(st.sampled_from(sorted(COMMANDS)))
    argv = name.split()
    for param in COMMANDS[name].params:
        opts = [o for o in param.opts if o.startswith("--")] or list(param.opts)
        if any(o in NEVER for o in opts):
            continue
        required = isinstance(param, click.Argument) or param.name == "db"
        if not required and not draw(st.booleans()):
            continue
        if getattr(param, "is_flag", False):
            argv.append(opts[0])
            continue
        choices = [db] if param.name == "db" else PLAUSIBLE.get(param.name or "", [])
        plausible = st.sampled_from(choices) if choices else odd_text
        if (name, param.name) in ONLY_PLAUSIBLE:
            value = draw(plausible)
        else:
            value = draw(st.one_of(plausible, plausible, odd_text))
        argv += [value] if isinstance(param, click.Argument) else [opts[0], value]
    return name, argv


class CliFuzz:
    def __init__(self, store: Fuzzed) -> None:
        self.store = store
        self.runner = CliRunner()
        self.calls = 0

    def invoke(self, name: str, argv: list[str]) -> None:
        before = table_hashes(self.store.url, self.store.admin)
        self.calls += 1
        result = self.runner.invoke(app, argv)
        shown = " ".join(a[:60] for a in argv)
        exc: Any = result.exception
        if exc is not None and not isinstance(exc, SystemExit):
            pytest.fail(f"sgam {shown} raised {type(exc).__name__}: {str(exc)[:300]}")
        assert result.exit_code in EXIT_STATUSES, f"sgam {shown} exited {result.exit_code}"
        if result.exit_code != 0 and name not in MAY_CHANGE_ON_FAILURE:
            after = table_hashes(self.store.url, self.store.admin)
            changed = sorted(t for t in before if before[t] != after.get(t))
            assert not changed, f"failed sgam {shown} changed {changed}"


@pytest.fixture
def cli_fuzz(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliFuzz]:
    monkeypatch.chdir(tmp_path)  # a hostile --db must not litter the checkout
    for name in ("SGAM_DATABASE_URL", "SGAM_TENANT", "SGAM_LLM_BASE_URL", "SGAM_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    target = Fuzzed(store.url, store.admin if store.backend == "postgres" else None)
    target.memory.close()
    fuzz = CliFuzz(target)
    yield fuzz
    print(f"\n{store.backend}: {fuzz.calls} fuzzed CLI calls")


def test_every_command_exits_with_a_documented_status_and_a_failure_changes_nothing(cli_fuzz: CliFuzz) -> None:
    @settings(max_examples=max(EXAMPLES // 2, 10), deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.lists(invocations(cli_fuzz.store.url), min_size=CALLS_PER_EXAMPLE, max_size=CALLS_PER_EXAMPLE))
    def run(batch: list[tuple[str, list[str]]]) -> None:
        for name, argv in batch:
            cli_fuzz.invoke(name, argv)

    run()
