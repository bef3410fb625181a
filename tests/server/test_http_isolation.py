"""Keys of one tenant never reach another's data, through any route, even with ids
guessed from the other tenant: those answer exactly like ids that do not exist."""

from __future__ import annotations

from .conftest import Served

T0 = "2026-01-01T00:00:00Z"


def test_every_route_is_scoped_to_the_keys_tenant(served: Served) -> None:
    with served.client("globex", "admin") as b:
        assert b.post("/v1/episodes", json={"id": "secret-ep", "at": T0, "text": "Globex merger codename Falcon"}
                      ).status_code == 201
        assert b.post("/v1/facts", json={"subject": "falcon", "attribute": "status", "value": "secret",
                                         "valid_from": T0, "source": "secret-ep"}).status_code == 201
        b.post("/v1/remember", json={"id": "queued-ep", "at": T0, "text": "Falcon", "extract": False})
        known = b.get("/v1/facts", params={"all_times": "true", "limit": 1})
        cursor_of_b = known.json()["next_cursor"]

    with served.client("acme", "admin") as a:
        not_found = [
            a.get("/v1/episodes/secret-ep"),
            a.get("/v1/facts/falcon/status"),
            a.post("/v1/held/1/confirm"),
            a.post("/v1/held/1/reject"),
        ]
        for response in not_found:
            assert response.status_code == 404 and response.json()["kind"] == "not_found", response.text
        assert a.get("/v1/episodes").json() == []
        assert a.get("/v1/facts", params={"all_times": "true"}).json()["items"] == []
        if cursor_of_b:
            assert a.get("/v1/facts", params={"cursor": cursor_of_b}).json()["items"] == []
        assert a.get("/v1/facts/falcon/status/history").json() == []
        assert a.post("/v1/search", json={"question": "Falcon merger"}).json() == []
        recalled = a.post("/v1/recall", json={"question": "What is the falcon status?"}).json()
        assert recalled["facts"] == [] and recalled["evidence"] == [] and "secret" not in recalled["context"]
        assert a.get("/v1/extractions").json() == [] and a.get("/v1/held").json() == []
        # writing and erasing with B's ids touches only A's (empty) tenant
        assert a.post("/v1/retract", json={"subject": "falcon", "attribute": "status", "at": T0,
                                           "source": "secret-ep"}).status_code == 404
        assert a.post("/v1/correct", json={"subject": "falcon", "attribute": "status", "valid_from": T0,
                                           "value": "x", "source": "secret-ep"}).status_code == 404
        assert a.post("/v1/facts", json={"subject": "falcon", "attribute": "status", "value": "x",
                                         "valid_from": T0, "source": "secret-ep"}).status_code == 404
        assert a.delete("/v1/episodes/secret-ep").status_code == 404
        assert a.delete("/v1/subjects/falcon").json()["operations_removed"] == 0
        assert a.get("/v1/whoami").json()["tenant"] == "acme"

    with served.client("globex", "read") as b:
        assert b.get("/v1/facts/falcon/status").json()["value"] == "secret"
        assert b.get("/v1/episodes/secret-ep").status_code == 200


def test_a_tenant_in_the_request_is_refused_not_obeyed(served: Served) -> None:
    with served.client("acme", "admin") as a:
        smuggled = a.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x", "tenant": "globex"})
        assert smuggled.status_code == 422 and smuggled.json()["field"] == "tenant"
        assert a.get("/v1/episodes", params={"tenant": "globex"}).json() == []
    with served.client("globex", "admin") as b:
        assert b.get("/v1/episodes").json() == []


def test_scopes_and_missing_keys(served: Served) -> None:
    with served.client("acme", "read") as reader:
        refused = reader.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"})
        assert refused.status_code == 403 and refused.json()["kind"] == "forbidden"
        assert reader.get("/v1/episodes").status_code == 200
    with served.client("acme", "write") as writer:
        assert writer.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "x"}).status_code == 201
        assert writer.delete("/v1/episodes/e1").status_code == 403
        assert writer.post("/v1/schema/attributes", json={"attribute": "a", "value_type": "string"}
                           ).status_code == 403
    with served.anonymous() as nobody:
        for response in (nobody.get("/v1/episodes"), nobody.post("/v1/recall", json={"question": "x"}),
                         nobody.get("/v1/episodes", headers={"Authorization": "Bearer sgam_bm9wZQ.x.y"}),
                         nobody.get("/v1/episodes", headers={"Authorization": "Basic abc"})):
            assert response.status_code == 401, response.text
            assert response.json()["kind"] == "unauthenticated"
            assert response.headers["www-authenticate"] == "Bearer"
        unknown = nobody.get("/v1/nowhere")
        assert unknown.status_code == 404 and unknown.headers["content-type"] == "application/problem+json"
