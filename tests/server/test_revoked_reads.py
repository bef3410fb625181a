"""A revocation holds over HTTP and in the inspector: the quarantine list, a relation's
key page and a thread's interrupt values leave the revoked subject out."""

from __future__ import annotations

import httpx

from ..lifecycle.test_revoked_reads import _seed
from .conftest import Served, post_sign_in


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
