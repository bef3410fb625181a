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
        repeated = c.get("/v1/reachable/zed", params={"attribute": ["supplier"] * 2000, "depth": 2})
        assert repeated.status_code == 200 and sorted(repeated.json()["subjects"]) == ["acme", "cogs"]
        many = c.get("/v1/reachable/zed", params={"attribute": [f"rel{i}" for i in range(33)]})
        assert many.status_code == 422 and many.json()["field"] == "attributes"
        assert "at most 32" in many.json()["detail"]
        no_member = c.post("/v1/retract", json={"subject": "acme", "attribute": "supplier",
                                                "at": "2026-03-01T00:00:00Z", "source": "e1"})
        assert no_member.status_code == 422 and no_member.json()["field"] == "value"


def test_aliases_over_http(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "MJ is Mira"}).status_code == 201
        assert c.post("/v1/facts", json={"subject": "mira", "attribute": "city", "value": "Oslo",
                                         "valid_from": T0, "source": "e1"}).status_code == 201
        joined = c.post("/v1/aliases", json={"name": "MJ", "subject": "Mira"})
        assert joined.status_code == 201 and (joined.json()["name"], joined.json()["subject"]) == ("mj", "mira")
        assert joined.json()["decided_by"].startswith("key:")
        assert c.get("/v1/facts/mj/city").json()["value"] == "Oslo"
        assert [n["name"] for n in c.get("/v1/names/MJ").json()] == ["mj"]
        again = c.post("/v1/aliases", json={"name": "mj", "subject": "mira"})
        assert again.status_code == 409
        ended = c.post("/v1/unalias", json={"name": "mj"})
        assert ended.status_code == 200 and ended.json()["until"] is not None
        assert c.post("/v1/unalias", json={"name": "mj"}).status_code == 404
        empty = c.post("/v1/aliases", json={"name": " ", "subject": "mira"})
        assert empty.status_code == 422 and empty.json()["field"] == "name"


def test_schema_migrations_over_http(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "budgets"}).status_code == 201
        assert c.post("/v1/schema/attributes", json={"attribute": "budget", "value_type": "string"}).status_code == 201
        for day, value in ((1, "100"), (2, "lots"), (3, "a thousand")):
            assert c.post("/v1/facts", json={"subject": "p1", "attribute": "budget", "value": value,
                                             "valid_from": f"2026-01-0{day}T00:00:00Z", "source": "e1"}
                          ).status_code == 201
        refused = c.post("/v1/schema/retype", json={"attribute": "budget", "value_type": "integer"})
        assert refused.status_code == 422 and refused.json()["field"] == "value_type"
        retyped = c.post("/v1/schema/retype", json={"attribute": "budget", "value_type": "integer",
                                                    "map": [["a thousand", 1000]], "quarantine": True})
        assert retyped.status_code == 201 and retyped.json()["kind"] == "retype"
        assert c.get("/v1/facts/p1/budget").json()["value"] == 1000
        assert [q["value"] for q in c.get("/v1/schema/quarantine").json()] == ["lots"]
        renamed = c.post("/v1/schema/rename", json={"attribute": "budget", "to": "spend"})
        assert renamed.status_code == 201
        assert c.get("/v1/facts/p1/spend").json()["value"] == 1000
        assert [h["kind"] for h in c.get("/v1/schema/history").json()] == ["retype", "rename"]
        assert c.post("/v1/schema/rename", json={"attribute": "nothing", "to": "x"}).status_code == 404
    with served.client("acme", "write") as c:
        assert c.post("/v1/schema/rename", json={"attribute": "spend", "to": "budget"}).status_code == 403


def test_a_backfill_is_watched_over_http_with_the_read_key(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "budgets"}).status_code == 201
        for subject in ("p1", "p2", "p3"):
            assert c.post("/v1/facts", json={"subject": subject, "attribute": "budget", "value": "12",
                                             "valid_from": T0, "source": "e1"}).status_code == 201
    served.memory.retype("acme", "budget", "integer", backfill=True, wait=False)
    served.memory.run_backfill("acme", batch=2, max_batches=1)
    with served.client("acme", "read") as c:
        assert c.get("/v1/facts/p3/budget").json()["value"] == 12  # not reached yet: converted on the fly
        [status] = c.get("/v1/schema/backfills").json()
        assert (status["kind"], status["attribute"], status["subjects_done"], status["subjects_total"],
                status["batches_done"], status["after_subject"], status["finished_at"]) == (
                    "retype", "budget", 2, 3, 1, "p2", None)


def test_declaring_another_type_over_stored_values_counts_them_and_names_retype(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "levels"}).status_code == 201
        assert c.post("/v1/facts", json={"subject": "ann", "attribute": "level", "value": "5",
                                         "valid_from": T0, "source": "e1"}).status_code == 201
        declared = c.post("/v1/schema/attributes", json={"attribute": "level", "value_type": "integer"})
        assert declared.status_code == 201
        assert declared.json()["not_of_type"] == 1 and "retype" in declared.json()["note"]


def test_retype_errors_name_the_body_field_and_openapi_lists_the_types(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "levels"}).status_code == 201
        assert c.post("/v1/facts", json={"subject": "ann", "attribute": "level", "value": "high",
                                         "valid_from": T0, "source": "e1"}).status_code == 201
        unknown = c.post("/v1/schema/retype", json={"attribute": "level", "value_type": "integr"})
        assert unknown.status_code == 422 and unknown.json()["field"] == "value_type"
        unconverted = c.post("/v1/schema/retype", json={"attribute": "level", "value_type": "integer"})
        assert unconverted.status_code == 422 and unconverted.json()["field"] == "value_type"
        assert "quarantine" in unconverted.json()["detail"]
        body = c.get("/openapi.json").json()["components"]["schemas"]["RetypeIn"]["properties"]["value_type"]
        assert "integer" in body["enum"] and "subject" in body["enum"]
        mapped = c.post("/v1/schema/retype", json={"attribute": "level", "value_type": "integer",
                                                   "map": [["high", 3]]})
        assert mapped.status_code == 201 and mapped.json()["detail"]["map"] == [["high", 3]]
        history = c.get("/v1/schema/history").json()
        assert history[-1]["detail"]["map"] == [["high", 3]]


def test_a_retract_of_a_one_valued_attribute_with_a_value_is_refused(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "Mira lives in Oslo"}).status_code == 201
        assert c.post("/v1/facts", json={"subject": "mira", "attribute": "city", "value": "Oslo",
                                         "valid_from": T0, "source": "e1"}).status_code == 201
        refused = c.post("/v1/retract", json={"subject": "mira", "attribute": "city", "value": "Oslo",
                                              "at": "2026-02-01T00:00:00Z", "source": "e1"})
        assert refused.status_code == 422 and refused.json()["field"] == "value"
        assert c.get("/v1/facts/mira/city").json()["valid_to"] is None


def test_facts_by_an_old_attribute_name_list_the_renamed_attribute(served: Served) -> None:
    with served.client("acme", "admin") as c:
        assert c.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "cities"}).status_code == 201
        for subject in ("ann", "bob"):
            assert c.post("/v1/facts", json={"subject": subject, "attribute": "city", "value": "Oslo",
                                             "valid_from": T0, "source": "e1"}).status_code == 201
        assert c.post("/v1/schema/rename", json={"attribute": "city", "to": "home_city"}).status_code == 201
        for name in ("city", "home_city"):
            listed = c.get("/v1/facts", params={"attribute": name}).json()["items"]
            assert [(f["subject"], f["attribute"]) for f in listed] == [("ann", "home_city"), ("bob", "home_city")]


def test_merging_or_splitting_subjects_needs_an_admin_key(served: Served) -> None:
    """A write key is what a model-driven process holds; a merge changes what every read of
    both names answers for the whole tenant, so it is an administrator's decision."""
    with served.client("acme", "admin") as admin:
        assert admin.post("/v1/episodes", json={"id": "e1", "at": T0, "text": "MJ is Mira"}).status_code == 201
        for subject, attribute, value in (("mira", "city", "Oslo"), ("mj", "employer", "Acme")):
            assert admin.post("/v1/facts", json={"subject": subject, "attribute": attribute, "value": value,
                                                 "valid_from": T0, "source": "e1"}).status_code == 201
    with served.client("acme", "write") as writer:
        assert writer.post("/v1/aliases", json={"name": "MJ", "subject": "Mira"}).status_code == 403
        assert writer.get("/v1/facts/mira/employer").status_code == 404  # not merged
        assert writer.get("/v1/names/mira").json() == []
    with served.client("acme", "admin") as admin:
        assert admin.post("/v1/aliases", json={"name": "MJ", "subject": "Mira"}).status_code == 201
    with served.client("acme", "write") as writer:
        assert writer.get("/v1/facts/mira/employer").json()["value"] == "Acme"  # merged by the admin
        assert writer.post("/v1/unalias", json={"name": "mj"}).status_code == 403
        assert [n["until"] for n in writer.get("/v1/names/mira").json()] == [None]  # still in force
