"""Every route of the HTTP API over a real socket, on both backends."""

from __future__ import annotations

from typing import Any

from .conftest import Served

T0 = "2026-01-01T00:00:00Z"
T1 = "2026-02-01T00:00:00Z"


def episode(id: str, text: str = "Mira lives in Rome", at: str = T0) -> dict[str, Any]:
    return {"id": id, "at": at, "text": text}


def test_episodes_facts_history_query(served: Served) -> None:
    with served.client(scope="write") as http:
        created = http.post("/v1/episodes", json={**episode("e1"), "speaker": "mira", "metadata": {"k": 1}})
        assert created.status_code == 201
        assert created.json()["id"] == "e1" and created.json()["metadata"] == {"k": 1}
        assert "tenant" not in created.request.content.decode()
        assert http.post("/v1/episodes", json=episode("e2", "Mira moved to Oslo", T1)).status_code == 201
        assert http.get("/v1/episodes/e1").json()["speaker"] == "mira"
        assert [e["id"] for e in http.get("/v1/episodes").json()] == ["e1", "e2"]

        fact = {"subject": "mira", "attribute": "city", "value": "Rome", "valid_from": T0, "source": "e1"}
        first = http.post("/v1/facts", json=fact)
        assert first.status_code == 201 and first.json()["effect"] == "created"
        again = http.post("/v1/facts", json=fact)
        assert again.status_code == 200 and again.json()["effect"] == "corroborated"
        moved = http.post("/v1/facts", json={**fact, "value": "Oslo", "valid_from": T1, "source": "e2"})
        assert moved.status_code == 201

        assert http.get("/v1/facts/mira/city").json()["value"] == "Oslo"
        assert http.get("/v1/facts/mira/city", params={"at": "2026-01-15T00:00:00Z"}).json()["value"] == "Rome"
        known = first.json()["assertion"]["recorded_at"]
        assert http.get("/v1/facts/mira/city", params={"known_at": known}).json()["value"] == "Rome"
        history = http.get("/v1/facts/mira/city/history").json()
        assert [a["value"] for a in history] == ["Rome", "Oslo"]
        missing = http.get("/v1/facts/mira/city", params={"at": "2025-01-01T00:00:00Z"})
        assert missing.status_code == 404 and missing.json()["kind"] == "not_found"
        assert missing.headers["content-type"] == "application/problem+json"

        for subject in ("a", "b", "c"):
            http.post("/v1/facts", json={**fact, "subject": subject})
        page = http.get("/v1/facts", params={"all_times": "true", "limit": 2}).json()
        seen = [(a["subject"], a["valid_from"]) for a in page["items"]]
        while page["next_cursor"]:
            page = http.get("/v1/facts", params={"all_times": "true", "limit": 2,
                                                 "cursor": page["next_cursor"]}).json()
            seen += [(a["subject"], a["valid_from"]) for a in page["items"]]
        assert [s for s, _ in seen] == ["a", "b", "c", "mira", "mira"]
        bad = http.get("/v1/facts", params={"cursor": "not-a-cursor"})
        assert bad.status_code == 422 and bad.json()["field"] == "cursor"


def test_retract_correct_and_erasure(served: Served) -> None:
    with served.client(scope="admin") as http:
        http.post("/v1/episodes", json=episode("e1"))
        fact = {"subject": "mira", "attribute": "city", "value": "Rome", "valid_from": T0, "source": "e1"}
        http.post("/v1/facts", json=fact)
        corrected = http.post("/v1/correct", json={"subject": "mira", "attribute": "city", "valid_from": T0,
                                                   "value": "Roma", "source": "e1"})
        assert corrected.status_code == 200 and corrected.json()["effect"] == "corrected"
        retracted = http.post("/v1/retract", json={"subject": "mira", "attribute": "city", "at": T1, "source": "e1"})
        assert retracted.json()["effect"] == "retracted"
        assert http.get("/v1/facts/mira/city", params={"at": T1}).status_code == 404
        conflict = http.post("/v1/facts", json={**fact, "value": "Paris"})
        assert conflict.status_code == 409 and conflict.json()["kind"] == "conflict"

        erased = http.delete("/v1/episodes/e1")
        assert erased.status_code == 200 and erased.json()["episodes_removed"] == 1
        assert http.get("/v1/episodes/e1").status_code == 404
        assert http.get("/v1/facts/mira/city/history").json() == []
        http.post("/v1/episodes", json=episode("e2"))
        http.post("/v1/facts", json={**fact, "source": "e2"})
        assert http.delete("/v1/subjects/mira").json()["operations_removed"] == 1
        assert http.get("/v1/facts", params={"all_times": "true"}).json()["items"] == []


def test_schema_search_recall_whoami(served: Served) -> None:
    with served.client(scope="admin") as http:
        declared = http.post("/v1/schema/attributes", json={"attribute": "age", "value_type": "integer"})
        assert declared.status_code == 201 and declared.json()["value_type"] == "integer"
        http.post("/v1/episodes", json=episode("e1", "Mira adopted a dog called Pixel"))
        http.post("/v1/facts", json={"subject": "mira", "attribute": "pet", "value": "Pixel",
                                     "valid_from": T0, "source": "e1"})
        wrong = http.post("/v1/facts", json={"subject": "mira", "attribute": "age", "value": "old",
                                             "valid_from": T0, "source": "e1"})
        assert wrong.status_code == 422 and wrong.json()["kind"] == "validation"
        hits = http.post("/v1/search", json={"question": "dog Pixel"}).json()
        assert [h["episode_id"] for h in hits] == ["e1"]
        recalled = http.post("/v1/recall", json={"question": "What is mira's pet?", "budget": 500}).json()
        assert recalled["context"].startswith("<memory")
        assert [f["value"] for f in recalled["facts"]] == ["Pixel"]
        assert [e["citation"]["episode_id"] for e in recalled["evidence"]] == ["e1"]
        before = http.post("/v1/recall", json={"question": "What is mira's pet?",
                                                "known_at": "2000-01-01T00:00:00Z"}).json()
        assert before["facts"] == [] and before["evidence"] == []
        assert http.get("/v1/whoami").json()["tenant"] == "acme"


def test_remember_held_confirm_reject(served: Served) -> None:
    with served.client(scope="write") as http:
        queued = http.post("/v1/remember", json={**episode("e1"), "extract": False})
        assert queued.status_code == 201 and queued.json()["queued"] is True
        assert http.get("/v1/extractions").json() == []
        assert http.get("/v1/held").json() == []
        for verb in ("confirm", "reject"):
            gone = http.post(f"/v1/held/12345/{verb}")
            assert gone.status_code == 404 and gone.json()["kind"] == "not_found"
        no_model = http.post("/v1/remember", json={**episode("e2"), "extract": True})
        assert no_model.status_code == 503 and no_model.json()["kind"] == "model"


def test_openapi_is_typed_and_names_no_tenant(served: Served) -> None:
    with served.anonymous() as http:
        spec = http.get("/openapi.json").json()
    assert spec["components"]["securitySchemes"]
    for path, methods in spec["paths"].items():
        assert path.startswith("/v1/")
        assert "tenant" not in path
        for method, operation in methods.items():
            keyed = path != "/v1/health"
            assert bool(operation.get("security")) is keyed, (method, path)
            for parameter in operation.get("parameters", []):
                assert parameter["name"] != "tenant"
            ok = [code for code in operation["responses"] if code.startswith("2")]
            content = operation["responses"][ok[0]]["content"]
            schema = content["application/json" if "application/json" in content else "application/x-ndjson"]["schema"]
            assert schema, (method, path)
            assert ("401" in operation["responses"]) is keyed, (method, path)
    bodies = [name for name, schema in spec["components"]["schemas"].items() if name.endswith("In")]
    for name in bodies:
        assert "tenant" not in spec["components"]["schemas"][name]["properties"], name
        assert spec["components"]["schemas"][name].get("additionalProperties") is False, name


def test_names_holding_a_slash_are_addressable(served: Served) -> None:
    with served.client(scope="admin") as http:
        assert http.post("/v1/episodes", json=episode("slack/C42/1700", "Team/alpha moved to Oslo")).status_code == 201
        assert http.get("/v1/episodes/slack/C42/1700").json()["id"] == "slack/C42/1700"
        assert http.get("/v1/episodes/slack%2FC42%2F1700").json()["id"] == "slack/C42/1700"
        assert http.get("/v1/episodes/slack/C42").status_code == 404
        fact = {"subject": "team/alpha", "attribute": "city", "value": "Oslo", "valid_from": T0,
                "source": "slack/C42/1700"}
        assert http.post("/v1/facts", json=fact).status_code == 201
        assert http.put("/v1/consent/team/alpha", json={"granted": False}).json()["subject"] == "team/alpha"
        assert http.get("/v1/consent/team/alpha").json() == {"subject": "team/alpha", "purpose": None,
                                                             "consented": False}
        assert http.delete("/v1/subjects/team/alpha").json()["operations_removed"] == 1
        assert http.delete("/v1/episodes/slack/C42/1700").json()["episodes_removed"] == 1
        assert http.get("/v1/episodes/slack/C42/1700").status_code == 404
