"""Lifecycle over HTTP on both backends: retention classes, deadlines, derived episodes,
purpose timelines, consent (``denied`` is 403), purge, audit and residue; scopes and
tenants from the key."""

from __future__ import annotations

from typing import Any

from ..conftest import ManualClock
from .conftest import Served

AT = "2026-06-01T09:00:00Z"


def fact(value: str, **extra: Any) -> dict[str, Any]:
    return {"subject": "mira", "attribute": "answer_style", "value": value, "valid_from": AT, "source": "e1",
            **extra}


def test_retention_deadlines_purge_audit_residue(served_at: Served, clock: ManualClock) -> None:
    with served_at.client(scope="admin") as admin, served_at.client(scope="write") as writer, \
            served_at.client(scope="read") as reader:
        assert writer.put("/v1/retention/chat", json={"ttl": "P1D"}).status_code == 403
        declared = admin.put("/v1/retention/chat", json={"ttl": "P1D", "on_expiry": "erase"})
        assert declared.status_code == 200
        assert declared.json()["ttl"] == "P1D" and declared.json()["on_expiry"] == "erase"
        bad = admin.put("/v1/retention/chat", json={"ttl": "P1M"})
        assert bad.status_code == 422 and bad.json()["field"] == "ttl"
        assert [c["name"] for c in reader.get("/v1/retention").json()] == ["default", "chat"]

        text = "Mira said the launch code word is zebrafinch."
        assert writer.post("/v1/episodes", json={"id": "e1", "at": AT, "text": text,
                                                 "retention": "chat"}).status_code == 201
        summary = writer.post("/v1/episodes", json={"id": "s1", "at": AT, "text": "A summary of e1.",
                                                    "derived_from": ["e1"]})
        assert summary.status_code == 201 and summary.json()["derived_from"] == ["e1"]
        assert [e["id"] for e in reader.get("/v1/episodes", params={"derived_from": "e1"}).json()] == ["s1"]
        assert reader.get("/v1/episodes", params={"derived_from": "s1"}).json() == []
        assert reader.get("/v1/episodes", params={"derived_from": "nope"}).status_code == 404
        writer.post("/v1/episodes", json={"id": "e2", "at": AT, "text": "Mira prefers short answers."})
        kept = writer.post("/v1/facts", json={**fact("short"), "source": "e2"})
        assert kept.status_code == 201
        writer.post("/v1/facts", json={"subject": "mira", "attribute": "badge", "value": "B-7", "valid_from": AT,
                                       "source": "e2", "expires_at": "2026-07-01T01:00:00Z"})
        assert reader.get("/v1/facts/mira/badge").json()["value"] == "B-7"
        report = reader.get("/v1/retention/report").json()
        chat = next(c for c in report["classes"] if c["class"] == "chat")
        assert chat["episodes"] == 1 and chat["next_deadline"] == "2026-07-02T00:00:00.000000Z"
        assert report["next_deadlines"][0] == {"kind": "write", "class": None, "at": "2026-07-01T01:00:00.000000Z"}

        clock.advance(2 * 3600)  # the write's deadline passed: no read returns it
        assert reader.get("/v1/facts/mira/badge").status_code == 404
        clock.advance(24 * 3600)  # the chat class's deadline passed: e1 and what was made from it go
        assert reader.get("/v1/episodes/e1").status_code == 404
        assert reader.get("/v1/episodes/s1").status_code == 404
        assert reader.get("/v1/facts/mira/answer_style").json()["value"] == "short"

        assert writer.post("/v1/purge").status_code == 403
        purged = admin.post("/v1/purge")
        assert purged.status_code == 200 and purged.json()["tenants"] <= 1
        actions = [entry["action"] for entry in reader.get("/v1/audit").json()]
        assert {"expire_episode", "expire_writes"} <= set(actions), actions
        assert all(text not in str(entry) for entry in reader.get("/v1/audit").json())
        assert reader.post("/v1/residue", json={"text": "zebrafinch"}).status_code == 403
        residue = admin.post("/v1/residue", json={"text": "zebrafinch"})
        assert residue.status_code == 200 and residue.json()["found"] is False, residue.json()

    with served_at.client("globex", "admin") as other:
        assert [c["name"] for c in other.get("/v1/retention").json()] == ["default"]
        assert other.get("/v1/audit").json() == []
        assert other.get("/v1/retention/report").json()["next_deadlines"] == []


def test_purpose_and_consent(served: Served) -> None:
    with served.client(scope="write") as writer, served.client(scope="read") as reader:
        writer.post("/v1/episodes", json={"id": "e1", "at": AT, "text": "Mira wants detailed answers, short slides."})
        assert writer.post("/v1/facts", json=fact("detailed")).status_code == 201
        scoped = writer.post("/v1/facts", json=fact("short", purpose="slides"))
        assert scoped.status_code == 201 and scoped.json()["assertion"]["purpose"] == "slides"
        assert reader.get("/v1/facts/mira/answer_style").json()["value"] == "detailed"
        assert reader.get("/v1/facts/mira/answer_style", params={"purpose": "slides"}).json()["value"] == "short"
        assert reader.get("/v1/facts/mira/answer_style", params={"purpose": "report"}).json()["value"] == "detailed"
        assert [a["value"] for a in reader.get("/v1/facts", params={"purpose": "slides"}).json()["items"]] \
            == ["short"]
        assert [a["value"] for a in reader.get("/v1/facts/mira/answer_style/history",
                                               params={"purpose": "slides"}).json()] == ["short"]
        bad = reader.get("/v1/facts/mira/answer_style", params={"purpose": ""})
        assert bad.status_code == 422 and bad.json()["field"] == "purpose"

        assert reader.put("/v1/consent/mira", json={"granted": False}).status_code == 403
        revoked = writer.put("/v1/consent/mira", json={"granted": False})
        assert revoked.status_code == 200 and revoked.json()["granted"] is False
        assert reader.get("/v1/consent/mira").json() == {"subject": "mira", "purpose": None, "consented": False}
        assert reader.get("/v1/facts/mira/answer_style").status_code == 404
        assert reader.get("/v1/facts").json()["items"] == []
        assert reader.get("/v1/episodes").json() == [] and reader.get("/v1/episodes/e1").status_code == 404
        recalled = reader.post("/v1/recall", json={"question": "How does mira want answers? answer_style"}).json()
        assert recalled["facts"] == [] and "detailed" not in recalled["context"]
        denied = writer.post("/v1/facts", json={**fact("verbose"), "valid_from": "2026-06-02T00:00:00Z"})
        assert denied.status_code == 403 and denied.json()["kind"] == "denied"
        assert denied.headers["content-type"] == "application/problem+json"
        assert "Traceback" not in denied.text

        writer.put("/v1/consent/mira", json={"granted": True, "purpose": "slides"})
        assert reader.get("/v1/consent/mira", params={"purpose": "slides"}).json()["consented"] is True
        assert reader.get("/v1/facts/mira/answer_style", params={"purpose": "slides"}).json()["value"] == "short"
        assert [e["id"] for e in reader.get("/v1/episodes", params={"purpose": "slides"}).json()] == ["e1"]
        assert reader.get("/v1/episodes/e1", params={"purpose": "slides"}).status_code == 200
        assert reader.get("/v1/episodes/e1").status_code == 404
        statements = reader.get("/v1/consent", params={"subject": "mira"}).json()
        assert [(s["purpose"], s["granted"]) for s in statements] == [(None, False), ("slides", True)]
        assert reader.get("/v1/audit").status_code == 200

    with served.client("globex", "write") as other:
        assert other.get("/v1/consent").json() == []
        assert other.get("/v1/consent/mira").json()["consented"] is True
        other.put("/v1/consent/mira", json={"granted": True})
    with served.client(scope="read") as reader:
        assert reader.get("/v1/consent/mira").json()["consented"] is False  # another tenant's grant changes nothing


def test_residue_is_scoped_to_the_callers_tenant(served: Served) -> None:
    """A tenant's admin learns nothing of another tenant's data: not whether a text is
    there, nor how often; where a text is in both, only its own occurrences count. On
    SQLite the places that mix tenants (full-text index tables, the files) are named as
    not searched while another tenant has data."""
    with served.client("acme", "admin") as acme, served.client("globex", "admin") as globex:
        for client, text in ((globex, "Globex keeps zq-globex-only-marker and zq-shared-marker."),
                             (acme, "Acme keeps zq-shared-marker.")):
            assert client.post("/v1/episodes", json={"id": "e1", "at": AT, "text": text}).status_code == 201
        assert globex.post("/v1/facts", json={**fact("zq-globex-only-marker"), "subject": "gia"}).status_code == 201

        theirs = acme.post("/v1/residue", json={"text": "zq-globex-only-marker"}).json()
        assert theirs["found"] is False and theirs["places"] == {}, theirs
        own = globex.post("/v1/residue", json={"text": "zq-globex-only-marker"}).json()
        assert own["found"] is True and own["places"]["table episodes"] == 1, own

        shared = acme.post("/v1/residue", json={"text": "zq-shared-marker"}).json()
        assert shared["found"] is True and shared["places"]["table episodes"] == 1, shared
        assert all(not place.startswith("file") and "not tenant-scoped" not in place for place in shared["places"])
        if served.memory.backend.url.startswith("sqlite"):
            assert "file sgam.db" in shared["unscanned"] and "table document_chunks_fts_data" in shared["unscanned"]
            # small tenants share a full-text partition: the one acme shares with globex is not
            # searched for acme (a hit there could be globex's) and is named as unscanned
            assert "table episodes_fts_1_data" in shared["unscanned"], shared
            assert not any(place.startswith("table episodes_fts_") for place in shared["places"]), shared
        else:
            assert shared["unscanned"] == []


def test_erasing_a_subject_with_no_fact_still_reaches_what_only_mentions_it(served: Served) -> None:
    """``DELETE /v1/subjects/{subject}`` of a subject the tenant holds no fact of answers 200
    with zero counts, not 404 as an unknown episode does: the erasure still reaches what only
    mentions the subject, such as a LangGraph run about it."""
    from ..langgraph.approval_graph import run_until_asked

    run_until_asked(served.memory, thread_id="report-9", subject="Nobody Known")
    with served.client(scope="admin") as admin:
        assert admin.get("/v1/threads/report-9").json()["subjects"] == ["nobody known"]
        erased = admin.delete("/v1/subjects/Nobody%20Known")
        assert erased.status_code == 200, erased.text
        assert (erased.json()["operations_removed"], erased.json()["episodes_removed"]) == (0, 0)
        assert admin.get("/v1/threads/report-9").status_code == 404  # the run about it is gone
        assert admin.delete("/v1/episodes/nobody").status_code == 404
