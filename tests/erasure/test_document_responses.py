"""Erasing a document reaches the responses stored for retried requests: a replay of a
create, a write, an edit or a memory-tool view of it answers 410 ``response_erased``
without acting again, and ``residue`` finds its text nowhere; a response about another
document is still replayed."""

from __future__ import annotations

import httpx

from sgam import Memory
from sgam.documents import Provenance

from ..server.conftest import serve

SECRET = "locker code qx-4417-vault"


def _post(client: httpx.Client, path: str, key: str, body: dict[str, object]) -> httpx.Response:
    return client.post(f"/v1/documents/{path}", json=body, headers={"Idempotency-Key": key})


def test_erasing_a_document_empties_the_responses_that_quote_it(store_url: str) -> None:
    with Memory(store_url) as memory, serve(memory) as served:
        requests = {
            "create": ("create", {"path": "/memories/notes.md", "file_text": f"Mira's {SECRET}\nmore"}),
            "write": ("write", {"path": "/memories/notes.md", "file_text": f"Mira's {SECRET}\nmore\nand more"}),
            "edit": ("tool", {"command": "str_replace", "path": "/memories/notes.md", "old_str": "and more",
                              "new_str": "and yet more"}),
            "view": ("tool", {"command": "view", "path": "/memories/notes.md"}),
            "other": ("create", {"path": "/memories/other.md", "file_text": "nothing to hide"}),
        }
        with served.client("acme", "admin") as client:
            first = {key: _post(client, path, key, body) for key, (path, body) in requests.items()}
            assert all(r.status_code in (200, 201) for r in first.values()), {k: r.text for k, r in first.items()}
            assert SECRET in first["view"].text and "more" in first["edit"].text
            assert memory.residue("acme", SECRET).found
            erased = client.post("/v1/documents/erase", json={"path": "/memories/notes.md"})
            assert erased.status_code == 200, erased.text
            for key, (path, body) in requests.items():
                replayed = _post(client, path, key, body)
                if key == "other":
                    assert replayed.status_code == 201 and replayed.headers["Idempotent-Replayed"] == "true"
                else:
                    assert replayed.status_code == 410, (key, replayed.text)
                    assert replayed.json()["kind"] == "response_erased"
            assert client.get("/v1/documents/file", params={"path": "/memories/notes.md"}).status_code == 404
        memory.purge_residue()
        for needle in (SECRET, "/memories/notes.md", "and yet more"):
            assert not memory.residue("acme", needle).found, (needle, memory.residue("acme", needle).places)


def test_erasing_the_episode_a_document_was_built_on_empties_the_responses_that_quote_it(store_url: str) -> None:
    with Memory(store_url) as memory, serve(memory) as served:
        memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", f"Mira said: {SECRET}")
        with served.client("acme", "admin") as client:
            kept = {"path": "/memories/plans.md", "file_text": "plans, all public"}
            assert _post(client, "write", "k1", kept).status_code == 200
            memory.documents.write("acme", "/memories/plans.md", f"plans, all public\n{SECRET}",
                                   by=Provenance(episode="e1"))
            view = {"command": "view", "path": "/memories/plans.md"}
            assert SECRET in _post(client, "tool", "k2", view).text
            edit = {"command": "str_replace", "path": "/memories/plans.md", "old_str": "all public",
                    "new_str": "all public still"}
            assert SECRET in _post(client, "tool", "k3", edit).text
            memory.forget_episode("acme", "e1")
            assert client.get("/v1/documents/file", params={"path": "/memories/plans.md"}).json()["content"] \
                == "plans, all public"
            assert _post(client, "tool", "k2", view).status_code == 410
            assert _post(client, "tool", "k3", edit).status_code == 410
            replayed = _post(client, "write", "k1", kept)  # quotes only the revision that stays
            assert replayed.status_code == 200 and replayed.headers["Idempotent-Replayed"] == "true"
        memory.purge_residue()
        assert not memory.residue("acme", SECRET).found, memory.residue("acme", SECRET).places
