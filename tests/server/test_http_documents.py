"""Document memory over HTTP on both backends: every memory-tool command as a route, the
revision history, diffs, restore, search, erase and the ``tool`` route; scopes, tenants and
concurrent-change guards; and subjects or attributes with a slash through ``/v1/facts``."""

from __future__ import annotations

from .conftest import Served

NOTE = "/memories/people/mira.md"


def test_every_command_history_diff_restore_search(served: Served) -> None:
    with served.client(scope="write") as writer, served.client(scope="read") as reader:
        created = writer.post("/v1/documents/create", json={"path": NOTE, "file_text": "Mira\nlives in Rome\n"})
        assert created.status_code == 201 and created.json()["revision"] == 1
        assert writer.post("/v1/documents/create", json={"path": NOTE, "file_text": "x"}).status_code == 409
        edited = writer.post("/v1/documents/str_replace", json={"path": NOTE, "old_str": "Rome", "new_str": "Oslo"})
        assert edited.status_code == 200
        assert edited.json()["line"] == 2 and edited.json()["document"]["content"] == "Mira\nlives in Oslo\n"
        inserted = writer.post("/v1/documents/insert", json={"path": NOTE, "insert_line": 0,
                                                              "insert_text": "# Mira"})
        assert inserted.json()["content"].startswith("# Mira\nMira\n") and inserted.json()["revision"] == 3
        stale = writer.post("/v1/documents/str_replace", json={"path": NOTE, "old_str": "Oslo", "new_str": "Bergen",
                                                               "expected_revision": 2})
        assert stale.status_code == 409 and stale.json()["kind"] == "conflict"

        document = reader.get("/v1/documents/file", params={"path": NOTE}).json()
        assert document["revision"] == 3 and "Oslo" in document["content"]
        listing = reader.get("/v1/documents/listing").json()
        assert [(e["path"], e["is_dir"]) for e in listing] == [("/memories/people", True), (NOTE, False)]
        history = reader.get("/v1/documents/history", params={"path": NOTE}).json()
        assert [r["op"] for r in history] == ["create", "str_replace", "insert"]
        assert {r["author"] for r in history} == {f"api-key:{served_key_id(served, 'write')}"}
        assert reader.get("/v1/documents/revision", params={"path": NOTE, "revision": 1}).json()["content"] \
            == "Mira\nlives in Rome\n"
        diff = reader.get("/v1/documents/diff", params={"path": NOTE, "old": 1}).json()["diff"]
        assert "-lives in Rome" in diff and "+lives in Oslo" in diff
        hits = reader.post("/v1/documents/search", json={"query": "Oslo"}).json()
        assert [h["path"] for h in hits] == [NOTE]

        restored = writer.post("/v1/documents/restore", json={"path": NOTE, "revision": 1})
        assert restored.json()["content"] == "Mira\nlives in Rome\n" and restored.json()["revision"] == 4
        moved = writer.post("/v1/documents/rename", json={"old_path": NOTE, "new_path": "/memories/mira.md"})
        assert moved.json() == {"moved": [[NOTE, "/memories/mira.md"]]}
        assert reader.get("/v1/documents/file", params={"path": NOTE}).status_code == 404
        deleted = writer.post("/v1/documents/delete", json={"path": "/memories/mira.md"})
        assert deleted.json() == {"deleted": ["/memories/mira.md"]}
        assert reader.get("/v1/documents/history", params={"path": "/memories/mira.md"}).json()[-1]["op"] == "delete"

        assert reader.post("/v1/documents/create", json={"path": "/memories/a.md", "file_text": "a"}).status_code \
            == 403
        assert writer.post("/v1/documents/erase", json={"path": "/memories/mira.md"}).status_code == 403
    with served.client(scope="admin") as admin:
        erased = admin.post("/v1/documents/erase", json={"path": "/memories/mira.md"})
        assert erased.status_code == 200 and erased.json()["revisions_removed"] >= 1
        assert admin.get("/v1/documents/history", params={"path": "/memories/mira.md"}).status_code == 404


def served_key_id(served: Served, scope: str) -> str:
    with served.client(scope=scope) as http:
        key_id: str = http.get("/v1/whoami").json()["key_id"]
        return key_id


def test_bad_paths_the_tool_route_and_tenants(served: Served) -> None:
    with served.client(scope="write") as writer, served.client(scope="read") as reader:
        for path in ("/etc/passwd", "/memories/../etc", "memories/a.md", "/memories/a\x00.md"):
            refused = writer.post("/v1/documents/create", json={"path": path, "file_text": "x"})
            assert refused.status_code == 422 and refused.json()["field"] == "path", (path, refused.json())
        assert writer.post("/v1/documents/create", json={"path": "/memories/a.md", "file_text": 3}).status_code == 422
        assert reader.get("/v1/documents/listing").json() == []

        made = writer.post("/v1/documents/tool", json={"command": "create", "path": "/memories/t.md",
                                                       "file_text": "one\ntwo\n"})
        assert made.json() == {"text": "File created successfully at: /memories/t.md", "is_error": False}
        viewed = reader.post("/v1/documents/tool", json={"command": "view", "path": "/memories/t.md",
                                                         "view_range": [2, 2]})
        assert viewed.status_code == 200 and viewed.json()["text"].endswith("     2\ttwo")
        missing = reader.post("/v1/documents/tool", json={"command": "view", "path": "/memories/none.md"})
        assert missing.status_code == 200 and missing.json()["is_error"] is True
        assert reader.post("/v1/documents/tool", json={"command": "delete", "path": "/memories/t.md"}).status_code \
            == 403
        unknown = writer.post("/v1/documents/tool", json={"command": "format_disk"}).json()
        assert unknown["is_error"] and "Unknown command" in unknown["text"]

    with served.client("globex", "admin") as other:
        assert other.get("/v1/documents/listing").json() == []
        assert other.get("/v1/documents/file", params={"path": "/memories/t.md"}).status_code == 404
        assert other.get("/v1/documents/history", params={"path": "/memories/t.md"}).status_code == 404
        assert other.post("/v1/documents/search", json={"query": "two"}).json() == []
        assert other.post("/v1/documents/erase", json={"path": "/memories/t.md"}).status_code == 404
        other.post("/v1/documents/create", json={"path": "/memories/t.md", "file_text": "globex's own"})
    with served.client(scope="read") as reader:
        assert reader.get("/v1/documents/file", params={"path": "/memories/t.md"}).json()["content"] == "one\ntwo\n"


def test_names_with_a_slash_through_the_query_route(served: Served) -> None:
    with served.client(scope="write") as http:
        http.post("/v1/episodes", json={"id": "e1", "at": "2026-01-01T00:00:00Z", "text": "Paths and names"})
        written = http.post("/v1/facts", json={"subject": "team/alpha", "attribute": "lead/name", "value": "Mira",
                                               "valid_from": "2026-01-01T00:00:00Z", "source": "e1"})
        assert written.status_code == 201
        found = http.get("/v1/facts", params={"subject": "team/alpha", "attribute": "lead/name"}).json()
        assert [(a["subject"], a["attribute"], a["value"]) for a in found["items"]] == [
            ("team/alpha", "lead/name", "Mira")]
        assert http.get("/v1/facts", params={"subject": "team", "attribute": "lead/name"}).json()["items"] == []
