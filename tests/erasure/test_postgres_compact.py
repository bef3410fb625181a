"""PostgreSQL erasure residue: the erased bytes stay in table and index files until
``sgam compact`` rewrites the tables; checked by scanning the data directory."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app
from sgam.extraction import ExtractionPolicy, ScriptedClient
from tests.conftest import PostgresUrls

MARKERS = {name: f"zq{name}marker" for name in ("text", "value", "speaker", "session", "meta", "reply", "subject")}


def _files_with(admin: str, markers: dict[str, str]) -> dict[str, list[str]]:
    """Which of the database's own files (heap, index, TOAST) hold each marker, after a
    checkpoint has written every dirty page out."""
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        row = conn.execute(
            "SELECT current_setting('data_directory'), oid FROM pg_database WHERE datname = current_database()"
        ).fetchone()
    assert row is not None
    folder = Path(row[0]) / "base" / str(row[1])
    found: dict[str, list[str]] = {}
    for path in folder.iterdir():
        if path.is_file():
            data = path.read_bytes()
            for name, marker in markers.items():
                if marker.encode() in data:
                    found.setdefault(name, []).append(path.name)
    return found


def _plant(memory: Memory) -> None:
    m = MARKERS
    text = f"{m['subject']} said {m['text']} about {m['value']}."
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", text, speaker=m["speaker"],
                       session=m["session"], metadata={"note": m["meta"]})
    memory.add_episode("acme", "e2", "2026-06-01T09:00:00Z", "someone likes tea.")  # stays
    reply = {"updates": [{"evidence": text, "subject": m["subject"], "attribute": "code", "change": "new",
                          "value": m["value"], "confidence": 0.9, "note": m["reply"]}]}
    memory.extract("acme", "e1", client=ScriptedClient.of([json.dumps(reply)]), policy=ExtractionPolicy.off())
    memory.write("acme", m["subject"], "drink", "tea", "2026-06-01T09:00:00Z", "e2")


def test_compact_removes_erased_bytes_from_the_data_directory(postgres: PostgresUrls) -> None:
    with Memory(postgres.app) as memory:
        _plant(memory)
        assert set(_files_with(postgres.admin, MARKERS)) == set(MARKERS)
        assert memory.forget_episode("acme", "e1").residue is not None
        result = memory.forget_subject("acme", MARKERS["subject"])
        assert result.residue is not None and "sgam compact" in result.residue
        assert memory.episode("acme", "e2") is not None
    outcome = CliRunner().invoke(app, ["compact", "--db", postgres.admin])
    assert outcome.exit_code == 0, outcome.output
    assert "extractions" in outcome.stdout
    assert _files_with(postgres.admin, MARKERS) == {}
    with Memory(postgres.app) as memory:  # the rest is intact
        assert memory.episode("acme", "e2") is not None


def test_compact_on_sqlite_says_what_remains(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sgam.db'}"
    with Memory(url) as memory:
        memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", "text")
    outcome = CliRunner().invoke(app, ["compact", "--db", url, "--wait", "0"])
    assert outcome.exit_code == 0 and "WAL is empty" in outcome.stdout
