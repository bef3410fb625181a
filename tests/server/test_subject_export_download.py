"""A subject's export over HTTP and from the inspector's subject page: admin keys only."""

from __future__ import annotations

import json

import pytest

from .conftest import Served
from .test_inspector_http import signed_in


@pytest.fixture(autouse=True)
def _one_erasure_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_ERASURE_KEY", "portability-test-key-" + "k" * 20)


def _fill(served: Served) -> None:
    memory = served.memory
    memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "Ann lives in Paris")
    memory.add_episode("acme", "e2", "2026-06-01T00:00:00Z", "Cy lives in Oslo")
    memory.write("acme", "ann", "city", "Paris", "2026-06-01T00:00:00Z", "e1")
    memory.write("acme", "cy", "city", "Oslo", "2026-06-01T00:00:00Z", "e2")


def _rows(text: str) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["subject"] == "ann" and lines[-1]["end"] is True
    return lines[1:-1]


def test_http_gives_a_subjects_export_to_admin_keys_only(served: Served) -> None:
    _fill(served)
    with served.client(scope="admin") as admin, served.client(scope="read") as reader:
        response = admin.post("/v1/subjects/ann/export")
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/x-ndjson")
        rows = _rows(response.text)
        assert {row["table"] for row in rows} >= {"episodes", "operations", "assertions"}
        assert "Oslo" not in response.text
        assert reader.post("/v1/subjects/ann/export").status_code == 403


def test_the_inspector_offers_the_download_to_admin_keys(served: Served) -> None:
    _fill(served)
    with signed_in(served) as admin:
        page = admin.get("/ui/subjects/ann").text
        assert "/ui/subjects/ann/export" in page
        download = admin.get("/ui/subjects/ann/export")
        assert download.status_code == 200
        assert "attachment" in download.headers["content-disposition"]
        assert "Paris" in download.text and "Oslo" not in download.text
    with signed_in(served, scope="read") as reader:
        assert "/ui/subjects/ann/export" not in reader.get("/ui/subjects/ann").text
        assert reader.get("/ui/subjects/ann/export").status_code == 403
