"""The inspector's schema page: attributes as declared now, the history of migration
steps (who, when, from which file) and what retypes set aside."""

from __future__ import annotations

import html

from pydantic import BaseModel

from .conftest import Served
from .test_inspector_http import signed_in


def test_the_schema_page_shows_attributes_steps_and_the_quarantine(served: Served) -> None:
    memory = served.memory
    memory.declare("acme", "budget", "string")
    memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "budgets")
    memory.write("acme", "p1", "budget", "lots", "2026-06-01T00:00:00Z", "e1")
    memory.write("acme", "p1", "budget", "250", "2026-06-02T00:00:00Z", "e1")
    memory.retype("acme", "budget", "integer", quarantine=True, decided_by="ops")
    memory.rename_attribute("acme", "budget", "spend")
    with signed_in(served, scope="read") as reader:
        page = html.unescape(reader.get("/ui/schema").text)
    assert 'href="/ui/schema"' in page
    assert "renamed to <code>spend</code>" in page
    assert "retype</strong> of <code>budget</code> to integer (quarantine)" in page and "by ops" in page
    assert "rename</strong> of <code>budget</code> to <code>spend</code>" in page
    assert '<code>"lots"</code>' in page and "Nothing set aside" not in page


class TripV1(BaseModel):
    city: str


class TripV2(BaseModel):
    destination: str


def test_the_schema_page_shows_a_memory_types_new_version_and_why_a_value_was_set_aside(served: Served) -> None:
    memory = served.memory
    memory.register_memory_type("acme", "trip", TripV1)
    memory.declare("acme", "plan", "object", memory_type="trip")
    memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "trips")
    memory.write("acme", "p1", "plan", {"city": "Oslo"}, "2026-06-01T00:00:00Z", "e1")
    memory.write("acme", "p2", "plan", {"city": ""}, "2026-06-01T00:00:00Z", "e1")

    def to_v2(old: dict[str, str]) -> TripV2:
        if not old["city"]:
            raise ValueError("no city")
        return TripV2(destination=old["city"])

    memory.register_memory_type("acme", "trip", TripV2, convert=to_v2, decided_by="ops")
    with signed_in(served, scope="read") as reader:
        page = html.unescape(reader.get("/ui/schema").text)
    version = memory.schema_history("acme")[0].detail["version"]
    assert f"retype</strong> of <code>plan</code> to version {version} of memory type <code>trip</code>" in page
    assert "the conversion function raised ValueError: no city" in page


def test_the_schema_page_shows_a_backfill_under_way_and_the_index(served: Served) -> None:
    memory = served.memory
    memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "budgets")
    for subject in ("p1", "p2", "p3"):
        memory.write("acme", subject, "budget", "12", "2026-06-01T00:00:00Z", "e1")
    with signed_in(served, scope="read") as reader:
        before = html.unescape(reader.get("/ui/schema").text)
        memory.retype("acme", "budget", "integer", backfill=True, wait=False)
        memory.run_backfill("acme", batch=2, max_batches=1)
        during = html.unescape(reader.get("/ui/schema").text)
        memory.run_backfill("acme")
        after = html.unescape(reader.get("/ui/schema").text)
    assert "No backfills." in before and "keyword search only" in before
    assert "episodes 0 of 1" in before  # no embedder: the episode has no vector
    step = memory.schema_history("acme")[0].seq
    assert f'<tr data-step="{step}"><td data-label="step">{step} · retype</td>' in during
    assert '<progress value="2" max="3" aria-label="step' in during and "2 of 3</td>" in during
    assert "not yet" in during and "not yet" not in after and '<progress value="3" max="3"' in after


def test_a_key_page_says_an_old_name_was_renamed_and_which_values_were_set_aside(served: Served) -> None:
    memory = served.memory
    memory.declare("acme", "budget", "string")
    memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "budgets")
    memory.write("acme", "p1", "budget", "lots", "2026-06-01T00:00:00Z", "e1")
    memory.write("acme", "p1", "budget", "250", "2026-06-02T00:00:00Z", "e1")
    memory.retype("acme", "budget", "integer", quarantine=True)
    with signed_in(served, scope="read") as reader:
        retyped = html.unescape(reader.get("/ui/keys/p1/budget").text)
        memory.rename_attribute("acme", "budget", "spend")
        old = html.unescape(reader.get("/ui/keys/p1/budget").text)
    assert "Set aside by a retype" in retyped and '"lots"' in retyped and "set aside since" in retyped
    assert "renamed to" not in retyped
    assert "budget was renamed to" in old and "<code>spend</code>" in old
