"""A served SQLite file after ``POST /v1/residue``: the scan reads the database's bytes
without dropping the server's locks, so writes it acknowledges afterwards reach the file
other processes read, and an erasure by the CLI is seen by the server at once."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from sgam import AsyncMemory, Memory
from sgam.access import create_key
from sgam.server import create_app

from ..erasure.test_sqlite_file_scan import cli_value, sgam
from .conftest import MAX_BODY, ServerThread, free_port

AT = "2026-06-01T09:00:00Z"


def test_a_residue_scan_keeps_the_servers_writes_and_sees_cli_erasures(tmp_path: Path) -> None:
    path = tmp_path / "served.db"
    url = f"sqlite:///{path}"
    with Memory(url) as memory:
        key = create_key(memory, "acme", "admin").key  # one tenant: the files are searched too
        port = free_port()
        app = create_app(AsyncMemory(memory, workers=2), max_body=MAX_BODY, public_url=f"http://127.0.0.1:{port}")
        with ServerThread(app, port), httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30,
                                                  headers={"Authorization": f"Bearer {key}"}) as client:
            episode = client.post("/v1/episodes", json={"id": "e1", "at": AT, "text": "Mira likes teal."})
            assert episode.status_code == 201

            def fact(attribute: str, value: str) -> int:
                return client.post("/v1/facts", json={"subject": "mira", "attribute": attribute, "value": value,
                                                      "valid_from": AT, "source": "e1"}).status_code

            assert fact("colour", "teal") == 201
            scanned = client.post("/v1/residue", json={"text": "teal"}).json()
            assert scanned["places"].get("file served.db-wal", 0) > 0, scanned
            assert cli_value(url, "mira", "colour") == "teal"
            assert [fact(f"fact{n}", f"value {n}") for n in range(5)] == [201] * 5
            assert cli_value(url, "mira", "fact4") == "value 4", "an acknowledged write went to an orphaned WAL"

            erased = sgam("forget", "-t", "acme", "--subject", "mira", "--db", url, "--json")
            assert erased.returncode == 0 and json.loads(erased.stdout)["operations_removed"] == 6, erased
            assert client.get("/v1/facts/mira/colour").status_code == 404
            assert fact("after", "kept") == 201
    with Memory(url) as reopened:
        assert reopened.get("acme", "mira", "after") is not None
        assert reopened.get("acme", "mira", "colour") is None
