"""What people read: tables never cut a value, an id or a time, at 80 columns or in a pipe.

These run the installed ``sgam`` script with its output piped, as ``make demo`` and any
``| less`` do, once with ``COLUMNS=80`` and once with no width given at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sgam import Memory
from sgam.extraction import ExtractionPolicy, ScriptedClient

SGAM = Path(sys.executable).with_name("sgam")
LONG_VALUE = "passport-renewal-appointment-at-the-embassy-of-norway-in-paris"
TIME = "2026-06-01T09:00:00.123456Z"


def sgam(*args: str, columns: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns is not None:
        env["COLUMNS"] = columns
    done = subprocess.run([str(SGAM), *args], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(params=["80", None], ids=["80-columns", "pipe"])
def columns(request: pytest.FixtureRequest) -> str | None:
    value: str | None = request.param
    return value


@pytest.fixture
def db(tmp_path: Path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    with Memory(url) as memory:
        memory.add_episode("acme", "episode-with-a-long-identifier-0001", TIME,
                           f"Mira booked {LONG_VALUE}. Her salary is 91000.")
        memory.write("acme", "mira", "passport_deadline", LONG_VALUE, TIME, "episode-with-a-long-identifier-0001")
        memory.write("acme", "mira", "passport_deadline", "2026-07-15", "2026-06-03T10:00:00Z",
                     "episode-with-a-long-identifier-0001")
        memory.declare("acme", "salary", "integer", sensitive=True)
        reply = {"updates": [{"evidence": "Her salary is 91000.", "subject": "mira", "attribute": "salary",
                              "current_value": None, "change": "new", "value": 91000, "valid_from": None,
                              "confidence": 0.9}]}
        memory.extract("acme", "episode-with-a-long-identifier-0001", client=ScriptedClient.of([reply]),
                       policy=ExtractionPolicy())
    yield url


def assert_whole(out: str, *expected: str) -> None:
    assert "…" not in out, out
    for text in expected:
        assert text in out, f"{text!r} was cut or is missing in:\n{out}"


def test_history_shows_whole_values_and_times(db: str, columns: str | None) -> None:
    out = sgam("history", "--db", db, "-t", "acme", "mira", "passport_deadline", columns=columns)
    assert_whole(out, f'"{LONG_VALUE}"', "2026-06-01T09:00:00Z", "2026-06-03T10:00:00Z",
                 "episode-with-a-long-identifier-0001")


def test_query_and_versions_show_whole_values(db: str, columns: str | None) -> None:
    out = sgam("query", "--db", db, "-t", "acme", "--all-times", columns=columns)
    assert_whole(out, f'"{LONG_VALUE}"', "passport_deadline", "episode-with-a-long-identifier-0001")
    out = sgam("versions", "--db", db, "-t", "acme", "mira", "passport_deadline", columns=columns)
    assert_whole(out, f'"{LONG_VALUE}"', "2026-06-01T09:00:00Z", "current")


def test_held_candidates_show_whole_status_and_evidence(db: str, columns: str | None) -> None:
    out = sgam("extractions", "held", "--db", db, "-t", "acme", columns=columns)
    assert_whole(out, "pending", "open", "Her salary is 91000.", "episode-with-a-long-identifier-0001")


def test_get_shows_full_precision_and_json_keeps_microseconds(db: str, columns: str | None) -> None:
    out = sgam("get", "--db", db, "-t", "acme", "mira", "passport_deadline", "--at", TIME, columns=columns)
    assert_whole(out, f'"{LONG_VALUE}"', TIME)
    out = sgam("history", "--db", db, "-t", "acme", "mira", "passport_deadline", "--json", columns=columns)
    assert '"valid_from": "2026-06-01T09:00:00.123456Z"' in out


def test_a_table_that_fits_is_drawn_as_a_table_in_one_line_per_row(db: str) -> None:
    out = sgam("history", "--db", db, "-t", "acme", "mira", "passport_deadline", columns="200")
    rows = [line for line in out.splitlines() if "episode-with-a-long-identifier-0001" in line]
    assert len(rows) == 2 and LONG_VALUE in rows[0] and "2026-06-03T10:00:00Z" in rows[1]


def test_the_demo_timeline_fits_80_columns_without_cutting_values(columns: str | None) -> None:
    out = sgam("demo", columns=columns)
    assert "+00:00" not in out
    timeline = out.split("6. The timeline of the key", 1)[1].split("7. Erasure", 1)[0]
    assert_whole(timeline, '"2026-07-15"', '"2026-06-30"', '"2026-08-01"')
    assert max(len(line) for line in timeline.splitlines()) <= 80
    rows = [line for line in timeline.splitlines() if line.startswith('"2026-')]
    assert len(rows) == 6  # three versions: one text row and one bar row each, none folded
