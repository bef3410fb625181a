"""The code shown in the README and in docs/ runs as written, so it cannot drift.

Every fenced block marked ``python``, ``bash``, ``sh`` or ``shell`` in ``README.md`` and in
any ``docs/*.md`` page runs here; a new page is covered without registering it. The
blocks of one page run in document order in one fresh folder (where the repository's
folders are linked, so ``sgam replay tests/scenarios`` works): Python blocks share one
namespace, shell blocks run with ``bash -e -o pipefail`` and ``sgam`` on the PATH. No model
server, PostgreSQL server or network is there. A block that needs one, or that must not
run here, says so on the line before its fence::

    <!-- docs-test: skip (needs a PostgreSQL server) -->

Blocks with another language (``sql``, ``text``) or none are not run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PYTHON = {"python", "py"}
SHELL = {"bash", "sh", "shell"}
FENCE = re.compile(r"^```([\w+-]*)[^\n]*$")
SKIP = re.compile(r"^<!--\s*docs-test:\s*skip\b.*-->\s*$")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    code: str
    skipped: bool

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, with the line each opens on and its skip marker."""
    found: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        end = next((n for n in range(index + 1, len(lines)) if lines[n].startswith("```")), len(lines))
        before = next((lines[n] for n in range(index - 1, -1, -1) if lines[n].strip()), "")
        found.append(Block(page, index + 1, opening.group(1).lower(), "\n".join(lines[index + 1:end]) + "\n",
                           bool(SKIP.match(before.strip()))))
        index = end + 1
    return found


def runnable(page: Path) -> list[Block]:
    return [b for b in blocks(page) if b.language in PYTHON | SHELL and not b.skipped]


def linked_folder(tmp_path: Path) -> Path:
    """A fresh folder where the repository's top-level entries are links (no database)."""
    folder = tmp_path / "docs-run"
    folder.mkdir()
    for entry in ROOT.iterdir():
        if not entry.name.startswith(".") and not entry.name.startswith("sgam.db"):
            (folder / entry.name).symlink_to(entry)
    return folder


def run_shell(block: Block, folder: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SGAM_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, check=False)
    assert done.returncode == 0, (
        f"the shell block at {block.where} failed (exit {done.returncode}):\n{block.code}\n"
        f"--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}")


@pytest.mark.parametrize("page", [p for p in PAGES if runnable(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_the_code_of_the_page_runs(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [k for k in os.environ if k.startswith("SGAM_")]:
        monkeypatch.delenv(name)
    folder = linked_folder(tmp_path)
    monkeypatch.chdir(folder)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for block in runnable(page):
        if block.language in PYTHON:
            try:
                exec(compile(block.code, block.where, "exec"), namespace)  # noqa: S102 - the docs' own code
            except Exception as exc:
                pytest.fail(f"the Python block at {block.where} raised {exc!r}:\n{block.code}")
        else:
            run_shell(block, folder)
    for value in namespace.values():  # close what the examples opened
        close = getattr(value, "close", None)
        if callable(close) and type(value).__name__ == "Memory":
            close()


def test_skip_markers_and_fences_are_read() -> None:
    page = ROOT / "README.md"
    found = blocks(page)
    assert any(b.skipped and b.language == "bash" for b in found)
    assert any(not b.skipped and b.language == "python" for b in found)
    assert all(b.code.strip() for b in found)
