"""Sets and relations over HTTP: declare a set of relations, read its members, who links
to a subject, what is reachable, retract one member; bad input answers 422 naming the field."""

from __future__ import annotations

from .conftest import Served

T0 = "2026-01-01T00:00:00Z"


def test_sets_and_relations_over_http(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "Acme buys from Cogs"}).status_code == 201
        declared = c.post("/v1/schema/attributes", json={"attribute": "supplier", "value_type": "subject",
                                                          "cardinality": "many"})
        assert declared.status_code == 201 and declared.json()["cardinality"] == "many"
        for buyer, seller in (("Acme", "Cogs"), ("acme", "Bolts"), ("zed", "ACME")):
            assert c.post("/v1/facts", json={"subject": buyer, "attribute": "supplier", "value": seller,
                                             "valid_from": T0, "source": "e1"}).status_code == 201
        members = c.get("/v1/facts/ACME/supplier/members").json()
        assert [(m["subject"], m["value"]) for m in members] == [("acme", "bolts"), ("acme", "cogs")]
        assert c.get("/v1/facts/Acme/supplier").json() == members  # a set's read answers its members
        assert c.get("/v1/facts/nobody/supplier").json() == []
        assert c.get("/v1/facts/acme/city").status_code == 404
        listed = c.get("/v1/facts", params={"attribute": "supplier"}).json()["items"]
        assert [(m["subject"], m["value"]) for m in listed] == [("acme", "bolts"), ("acme", "cogs"), ("zed", "acme")]
        assert c.get("/v1/linked/supplier/Cogs").json() == ["acme"]
        found = c.get("/v1/reachable/zed", params={"attribute": "supplier", "depth": 2}).json()
        assert sorted(found["subjects"]) == ["acme", "bolts", "cogs"] and found["cut"] is False
        assert c.post("/v1/retract", json={"subject": "acme", "attribute": "supplier", "at": "2026-02-01T00:00:00Z",
                                           "source": "e1", "value": "bolts"}).status_code == 200
        assert [m["value"] for m in c.get("/v1/facts/acme/supplier/members").json()] == ["cogs"]
        bad = c.get("/v1/reachable/zed", params={"attribute": "supplier", "depth": 11})
        assert bad.status_code == 422 and bad.json()["field"] == "depth"
        no_member = c.post("/v1/retract", json={"subject": "acme", "attribute": "supplier",
                                                "at": "2026-03-01T00:00:00Z", "source": "e1"})
        assert no_member.status_code == 422 and no_member.json()["field"] == "value"
