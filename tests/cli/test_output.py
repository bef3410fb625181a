"""What the CLI prints, piped and at 80 columns, runs the installed ``sgam`` as a user
does: a pipe gets every line whole (no wrapping, tabs kept), a terminal's width folds only
free text, every table has the one style, and ``sgam --help`` loads no library module."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sgam import Memory
from sgam.cli.recall import PRESET_NAMES
from sgam.search import PRESETS

SGAM = Path(sys.executable).with_name("sgam")
LONG_TEXT = "Mira booked the passport renewal appointment at the embassy in Paris " * 3
LONG_ID = "slack/C042/thread-1700000000.123456/message-0001"
T0 = "2026-06-01T09:00:00Z"


def sgam(*args: str, columns: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = columns
    done = subprocess.run([str(SGAM), *args], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'out.db'}"
    with Memory(url) as memory:
        memory.add_episode("acme", LONG_ID, T0, LONG_TEXT.strip(), speaker="mira")
        memory.add_episode("acme", "e2", T0, "Tabs\tstay\ttabs.", speaker="omar")
        memory.write("acme", "mira", "city", "Rome", T0, LONG_ID)
        memory.retract("acme", "mira", "city", "2026-07-01T00:00:00Z", LONG_ID)
        memory.once("acme", "ticket-42", {"action": "open a ticket", "detail": "x" * 120}, lambda key: {"ticket": 42})
        memory.documents.create("acme", "/memories/a-long-folder-name/with-a-longer-document-name-inside.md", "x")
    return url


def test_a_pipe_gets_every_row_whole_on_one_line(db: str) -> None:
    out = sgam("episodes", "--db", db, "-t", "acme")
    rows = [line for line in out.splitlines() if LONG_ID in line]
    assert len(rows) == 1 and LONG_TEXT.strip() in rows[0]  # a table, one line per row, nothing folded
    assert "episode" in out.splitlines()[0] and "text" in out.splitlines()[0]
    history = sgam("docs", "history", "--db", db, "-t", "acme",
                   "/memories/a-long-folder-name/with-a-longer-document-name-inside.md")
    line, = history.splitlines()
    assert line.count("\t") == 4 and line.split("\t")[3].endswith("with-a-longer-document-name-inside.md")
    shown = sgam("episode", "--db", db, "-t", "acme", "e3", T0, "Tabs\tstay\ttabs, " + LONG_TEXT)
    assert "Tabs\tstay\ttabs, " + LONG_TEXT in shown  # one line, tabs and all


def test_at_80_columns_only_free_text_folds(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fold.db'}"
    with Memory(url) as memory:
        memory.add_episode("acme", "msg-0001", T0, LONG_TEXT.strip(), speaker="mira", session="s-2026-06")
    out = sgam("episodes", "--db", url, "-t", "acme", columns="80")
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].split() == ["episode", "at", "speaker", "kind", "session", "text"]  # still a table
    assert lines[2].split()[:5] == ["msg-0001", T0, "mira", "message", "s-2026-06"]  # whole, on one line
    assert len(lines) > 3 and "…" not in out
    folded = "".join(line[line.index(lines[2].split()[5]):] if i == 2 else line.strip()
                     for i, line in enumerate(lines[2:], start=2))
    assert folded.replace(" ", "") == LONG_TEXT.strip().replace(" ", "")


def test_every_table_has_the_one_style(db: str) -> None:
    for args in (("actions",), ("keys", "list"), ("episodes",)):
        out = sgam(*args, "--db", db, "-t", "acme", columns="200")
        assert not set(out) & set("┏┃━┡╇│┗┛┓"), (args, out)
    actions = sgam("actions", "--db", db, "-t", "acme", columns="200")
    assert "x" * 120 in "".join(actions.split())  # the request is whole, folded, not cut at 80 characters


def test_versions_number_each_row_and_explain_a_repeated_id(db: str) -> None:
    out = sgam("versions", "--db", db, "-t", "acme", "mira", "city", columns="250")
    header = out.splitlines()[1]
    assert header.split()[:2] == ["version", "assertion"]
    rows = [line.split() for line in out.splitlines() if "Rome" in line]
    assert [row[0] for row in rows] == ["1", "2"] and rows[0][1] == rows[1][1]
    assert f"assertion {rows[0][1]}: more than one version, because a retraction ended it early" in out


def test_help_imports_no_library_module() -> None:
    """``sgam --help`` (every command's module) loads no store, search, model or pydantic."""
    probe = ("import sys, sgam.cli.app; "
             "print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('numpy', 'httpx', 'pydantic', 'jsonschema', 'sqlite3', 'psycopg', 'yaml', 'fastapi', 'mcp') "
             "or m.startswith(('sgam.store', 'sgam.search', 'sgam.memory.facade', 'sgam.documents', "
             "'sgam.extraction')))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == ""
    assert "Usage" in sgam("--help")


def test_the_help_names_every_search_preset() -> None:
    assert sorted(PRESET_NAMES) == sorted(PRESETS)


def test_every_commands_summary_is_one_line() -> None:
    """A command list shows each command's first paragraph as written: one broken across
    lines in the source prints as ragged lines in ``sgam --help``."""
    import inspect

    import typer.main

    from sgam.cli.app import app

    def commands(group: Any, prefix: str) -> list[tuple[str, Any]]:
        found: list[tuple[str, Any]] = []
        for name, command in group.commands.items():
            found.append((f"{prefix}{name}", command))
            if hasattr(command, "commands"):
                found += commands(command, f"{prefix}{name} ")
        return found

    root = typer.main.get_command(app)
    assert len(commands(root, "")) > 40
    ragged = [name for name, command in commands(root, "")
              if "\n" in inspect.cleandoc(command.short_help or command.help or "").split("\n\n")[0]]
    assert ragged == []
