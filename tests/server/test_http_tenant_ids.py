"""Over HTTP, a tenant's ids are its own: another tenant's writes in between change none."""

from __future__ import annotations

from .conftest import Served

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"


def test_a_tenants_ids_over_http_count_only_its_own_writes(served: Served) -> None:
    with served.client("acme", "admin") as a, served.client("globex", "admin") as b:
        assert b.post("/v1/episodes", json={"id": "n1", "at": T1, "text": "noise"}).status_code == 201
        assert a.post("/v1/episodes", json={"id": "e1", "at": T1, "text": "mira moved"}).status_code == 201
        seen = []
        for at, city in ((T1, "Paris"), (T2, "Rome"), (T3, "Oslo")):
            for i in range(10):
                assert b.post("/v1/facts", json={"subject": f"n{city}{i}", "attribute": "city", "value": "x",
                                                 "valid_from": T1, "source": "n1"}).status_code == 201
            written = a.post("/v1/facts", json={"subject": "mira", "attribute": "city", "value": city,
                                                "valid_from": at, "source": "e1"})
            assert written.status_code == 201, written.text
            seen.append(written.json()["operation_id"])
        history = a.get("/v1/facts/mira/city/history").json()
    assert seen == [1, 2, 3]
    assert [(v["id"], v["supersedes"]) for v in history] == [(1, None), (2, 1), (3, 2)]
