"""A revocation holds over HTTP and in the inspector: the quarantine list, a relation's
key page and a thread's interrupt values leave the revoked subject out."""

from __future__ import annotations

import httpx

from ..lifecycle.test_revoked_reads import _seed
from .conftest import Served, post_sign_in

T1 = "2026-01-01T00:00:00Z"


def test_http_and_the_inspector_leave_a_revoked_subject_out(served: Served) -> None:
    _seed(served.memory, "acme")
    served.memory.consent("acme", "ola", False)
    with served.client("acme", "read") as read:
        assert read.get("/v1/schema/quarantine").json() == []
        assert read.get("/v1/threads/run-1").json()["checkpoints"][0]["waiting_for"] == ["approve the report?"]
    with httpx.Client(base_url=served.url, timeout=30) as browser:
        assert post_sign_in(browser, served.keys[("acme", "read")]).status_code == 303
        schema = browser.get("/ui/schema")
        assert schema.status_code == 200 and "lots" not in schema.text
        key = browser.get("/ui/keys/mira/manager")
        assert key.status_code == 200 and "kim" in key.text.lower() and "ola" not in key.text.lower()
        thread = browser.get("/ui/threads/run-1")
        assert thread.status_code == 200 and "approve the report?" in thread.text
        assert "raise" not in thread.text


def test_http_denies_a_correction_naming_a_revoked_subject_and_refuses_invisible_ids(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T1, "text": "Mira's manager is Ola."}).status_code == 201
        assert c.post("/v1/schema/attributes", json={"attribute": "manager", "value_type": "subject"}).status_code \
            == 201
        fact = {"subject": "mira", "attribute": "manager", "value": "Ola", "valid_from": T1, "source": "e1"}
        assert c.post("/v1/facts", json=fact).status_code == 201
        served.memory.consent("acme", "bob", False)
        corrected = c.post("/v1/correct", json={**fact, "value": "Bob"})
        assert corrected.status_code == 403, corrected.text
        assert (corrected.json()["kind"], corrected.json()["field"]) == ("denied", "value")
        hidden = c.post("/v1/facts", json={**fact, "subject": "Mi\u200bra", "valid_from": "2026-02-01T00:00:00Z"})
        assert hidden.status_code == 422 and hidden.json()["field"] == "subject"
        assert c.get("/v1/facts/mira/manager").json()["value"] == "ola"
