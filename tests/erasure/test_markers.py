"""Plant a unique marker in every field that can hold one, erase, and look for the markers
through every read path and in the database's own files, on both backends.

Markers are random (``zqm`` + hex + ``q``): no stemmer changes them, and the files are
searched for each marker's tail, because full-text indexes store a term after the prefix
it shares with the term before it."""

from __future__ import annotations

import secrets
from contextlib import closing
from pathlib import Path
from typing import Any

import psycopg
from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app
from sgam.extraction import ExtractionPolicy, ScriptedClient
from tests.citus import every_node
from tests.conftest import HashingEmbedder, Store

FIELDS = ("episode_id", "text", "speaker", "session", "meta_key", "meta_value", "subject", "value",
          "held_value", "reply_note", "shown_value", "other_attribute_value")


def markers() -> dict[str, str]:
    return {field: f"zqm{secrets.token_hex(6)}q" for field in FIELDS}


def tails(planted: dict[str, str]) -> dict[str, bytes]:
    return {field: marker[-9:].encode() for field, marker in planted.items()}


def plant(memory: Memory, m: dict[str, str]) -> None:
    """One episode full of markers (erased by ``forget_episode``), a subject named by a
    marker (erased by ``forget_subject``), and an untouched episode whose extraction was
    shown the subject's value."""
    tenant = "acme"
    memory.declare(tenant, "diagnosis", "string", sensitive=True)
    text = f"{m['subject']} said {m['text']}; diagnosis {m['held_value']}."
    memory.remember(tenant, m["episode_id"], "2026-06-01T09:00:00Z", text, speaker=m["speaker"],
                    session=m["session"], metadata={m["meta_key"]: m["meta_value"]}, extract=False)
    reply = {"note": m["reply_note"], "updates": [
        {"evidence": text, "subject": m["subject"], "attribute": "code", "change": "new",
         "value": m["value"], "confidence": 0.9},
        {"evidence": text, "subject": m["subject"], "attribute": "diagnosis", "change": "new",
         "value": m["held_value"], "confidence": 0.9},
    ]}
    memory.extract(tenant, m["episode_id"], client=ScriptedClient.of([reply]), policy=ExtractionPolicy.off())
    memory.add_episode(tenant, "plain", "2026-06-02T09:00:00Z", "Ann drinks tea.")
    memory.write(tenant, m["subject"], "colour", m["other_attribute_value"], "2026-06-02T09:00:00Z", "plain")
    shown = {"updates": [{"evidence": "Ann drinks tea.", "subject": m["subject"], "attribute": "code",
                          "current_value": m["shown_value"], "change": "update", "value": "tea",
                          "confidence": 0.9}]}
    memory.extract(tenant, "plain", client=ScriptedClient.of([shown]), policy=ExtractionPolicy.off())


def read_everything(memory: Memory, m: dict[str, str]) -> str:
    """Every read path's answers, as text."""
    tenant, subject = "acme", m["subject"]
    found: list[Any] = [
        memory.episode(tenant, m["episode_id"]), memory.episodes(tenant, limit=1000),
        memory.episodes(tenant, session=m["session"]), memory.extractions(tenant, limit=1000),
        memory.extractions(tenant, episode=m["episode_id"]), memory.held(tenant, status=None, limit=1000),
        memory.query(tenant, all_times=True, limit=1000),
        memory.query(tenant, all_times=True, known_at="2026-07-01T00:00:01Z", limit=1000),
        memory.query(tenant, subject=subject, all_times=True),
        memory.search(tenant, " ".join(m.values()), limit=100),
        memory.search(tenant, m["text"], session=m["session"]),
    ]
    recalled = memory.recall(tenant, f"what about {subject} {m['text']}?", budget=4000)
    found += [recalled.items, recalled.text]  # not the question, which quotes the markers
    for attribute in ("code", "diagnosis", "colour"):
        found += [memory.get(tenant, subject, attribute, at="2026-06-05T00:00:00Z"),
                  memory.history(tenant, subject, attribute), memory.versions(tenant, subject, attribute)]
    return repr(found)


def files_holding(url: str, admin: str | None, wanted: dict[str, bytes]) -> set[str]:
    if url.startswith("sqlite:///"):
        path = Path(url.removeprefix("sqlite:///"))
        blobs = [p.read_bytes() for p in path.parent.glob(path.name + "*")]
    else:
        assert admin is not None
        blobs = []
        for node in every_node(admin):  # on Citus the workers hold the rows
            with psycopg.connect(node, autocommit=True) as conn:
                conn.execute("CHECKPOINT")
                row = conn.execute("SELECT current_setting('data_directory'), oid FROM pg_database "
                                   "WHERE datname = current_database()").fetchone()
            assert row is not None
            blobs += [p.read_bytes() for p in (Path(row[0]) / "base" / str(row[1])).iterdir() if p.is_file()]
    return {field for field, tail in wanted.items() if any(tail in blob for blob in blobs)}


def test_no_marker_survives_erasure_on_any_read_path_or_in_the_files(store: Store, clock: Any) -> None:
    url, admin = store.url, (store.admin if store.backend == "postgres" else None)
    m = markers()
    with Memory(url, clock=clock, embedder=HashingEmbedder()) as memory:
        plant(memory, m)
        seen = read_everything(memory, m)
        assert {f for f, marker in m.items() if marker in seen} >= {"episode_id", "text", "subject", "value",
                                                                     "held_value", "reply_note", "shown_value"}
        assert files_holding(url, admin, tails(m)) == set(FIELDS)
        memory.forget_episode("acme", m["episode_id"])
        memory.forget_subject("acme", m["subject"])
        seen = read_everything(memory, m)
        assert [f for f, marker in m.items() if marker in seen] == []
        assert memory.episode("acme", "plain") is not None  # what was not erased stays
    if admin is not None:
        assert CliRunner().invoke(app, ["compact", "--db", admin]).exit_code == 0
    assert files_holding(url, admin, tails(m)) == set()


def test_sqlite_files_are_clean_without_compaction(tmp_path: Path) -> None:
    """On SQLite the erasure itself cleans the files (no reader holds an old snapshot)."""
    url = f"sqlite:///{tmp_path / 'sgam.db'}"
    m = markers()
    with Memory(url) as memory:
        plant(memory, m)
        assert memory.forget_episode("acme", m["episode_id"]).residue is None
        assert memory.forget_subject("acme", m["subject"]).residue is None
        with closing(memory.backend._conn.cursor()):  # type: ignore[attr-defined]
            assert files_holding(url, None, tails(m)) == set()
