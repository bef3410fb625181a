"""A residue scan of a SQLite store reads the database and WAL bytes without touching
this process's locks on them: SQLite keeps POSIX advisory locks, and closing any
descriptor of a file drops all of them. After a scan, another process that opens and
closes the database must find this one still there (so it keeps the WAL), and this
process must go on seeing that process's changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sgam import Memory
from sgam.store.sqlite import filebytes

AT = "2026-06-01T09:00:00Z"


def sgam(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own, run from this checkout's sources."""
    return subprocess.run([sys.executable, "-c", "from sgam.cli import main; main()", *args],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def cli_value(url: str, subject: str, attribute: str) -> object:
    done = sgam("get", "-t", "acme", subject, attribute, "--json", "--db", url)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    return None if found is None else found["value"]


def test_writes_after_a_residue_scan_are_seen_by_other_processes_and_survive(tmp_path: Path) -> None:
    path = tmp_path / "sgam.db"
    url = f"sqlite:///{path}"
    memory = Memory(url)
    try:
        memory.add_episode("acme", "e1", AT, "Mira likes teal.")
        memory.write("acme", "mira", "colour", "teal", AT, "e1")
        assert memory.residue("acme", "teal").places.get("file sgam.db-wal", 0) > 0
        assert cli_value(url, "mira", "colour") == "teal"  # another process opens and closes the file
        assert path.with_name("sgam.db-wal").exists(), "the other process took this one for gone"
        for n in range(5):
            memory.write("acme", "mira", f"fact{n}", f"value {n}", AT, "e1")
        assert cli_value(url, "mira", "fact4") == "value 4"

        erased = sgam("forget", "-t", "acme", "--subject", "mira", "--db", url)
        assert erased.returncode == 0, erased.stderr
        assert memory.get("acme", "mira", "colour") is None, "an erasure by the CLI is not seen at once"
        memory.add_episode("acme", "e2", AT, "Ann drinks tea.")
        memory.write("acme", "ann", "drink", "tea", AT, "e2")
    finally:
        memory.close()
    with Memory(url) as reopened:
        assert reopened.get("acme", "ann", "drink") is not None
        assert reopened.get("acme", "mira", "fact4") is None
        assert sorted(e.id for e in reopened.episodes("acme")) == ["e1", "e2"]


def test_the_file_scanner_counts_what_the_files_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The scanner is a file run by an isolated interpreter: it imports nothing of sgam,
    and what it counts agrees with the bytes, across the chunks it reads."""
    data = b"x" * 100 + b"needle" + b"y" * 5 + b"nee" + b"dle" + b"needle"
    target = tmp_path / "f"
    target.write_bytes(data)
    done = subprocess.run([sys.executable, "-I", filebytes.__file__], capture_output=True, text=True, check=False,
                          input=json.dumps({"files": [str(target), str(tmp_path / "missing")], "needles": ["needle"]}))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {str(target): 3}
    for chunk in (1, 2, 5, 7, 64):
        monkeypatch.setattr(filebytes, "CHUNK", chunk)
        assert filebytes.count_in_file(str(target), [b"needle", b"yy"]) == 3 + 4  # "yyyyy" holds "yy" 4 times
