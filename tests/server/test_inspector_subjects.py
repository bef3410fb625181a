"""The inspector's subject page over HTTP, on both backends: a team whose members change,
a company's supplier, read at chosen instants; relations in both directions as links; the
neighbourhood picture; names matched after normalisation; nothing of another tenant."""

from __future__ import annotations

import html
import re

from sgam import Memory
from sgam.extraction import ExtractionPolicy, ScriptedClient

from ..conftest import ManualClock
from .conftest import Served
from .test_inspector_http import signed_in

TEAM = "/ui/subjects/team%207"


def seed_shape(memory: Memory, clock: ManualClock) -> None:
    """Team 7 gains Mira Jansen in January and Ilse in March; Mira leaves in May (recorded
    in June). Acme Corp buys from Cogs; Mira lives in Oslo."""
    memory.declare("acme", "members", "subject", cardinality="many")
    memory.declare("acme", "supplier", "subject")
    clock.set("2026-01-05T09:00:00+00:00")
    memory.add_episode("acme", "t1", "2026-01-05T09:00:00Z", "Mira Jansen joined Team 7. Mira lives in Oslo.")
    memory.write("acme", "Team 7", "members", "Mira Jansen", "2026-01-05T09:00:00Z", "t1")
    memory.write("acme", "Mira Jansen", "city", "Oslo", "2026-01-05T09:00:00Z", "t1")
    memory.add_episode("acme", "g1", "2026-01-06T09:00:00Z", "Acme Corp buys its gears from Cogs.")
    memory.write("acme", "Acme Corp", "supplier", "Cogs", "2026-01-06T09:00:00Z", "g1")
    clock.set("2026-03-02T09:00:00+00:00")
    memory.add_episode("acme", "t2", "2026-03-02T09:00:00Z", "Ilse joined Team 7.")
    memory.write("acme", "team 7", "members", "Ilse", "2026-03-02T09:00:00Z", "t2")
    clock.set("2026-06-01T09:00:00+00:00")
    memory.add_episode("acme", "t3", "2026-05-20T09:00:00Z", "Mira left Team 7 on May 20.")
    memory.retract("acme", "team 7", "members", "2026-05-20T09:00:00Z", "t3", value="mira jansen")
    clock.set("2026-06-10T12:00:00+00:00")


def _member_links(page: str) -> list[str]:
    found = re.search(r'<ul class="members">(.*?)</ul>', page, re.S)
    return [] if found is None else re.findall(r'<li><a href="/ui/subjects/([^"?]+)[^"]*">', found.group(1))


def _wide(page: str) -> str:
    """The page less its phone-width pictures (each picture is drawn twice, one shown)."""
    return re.sub(r'<figure class="narrow-only">.*?</figure>', "", page, flags=re.S)


def _narrow(page: str) -> str:
    return "".join(re.findall(r'<figure class="narrow-only">(.*?)</figure>', page, re.S))


def _nodes(page: str) -> list[str]:
    return re.findall(r'<g class="node(?: centre)?" data-subject="([^"]+)"', _wide(page))


def test_a_subject_page_shows_names_attributes_sets_and_relations(served_at: Served, clock: ManualClock) -> None:
    seed_shape(served_at.memory, clock)
    with signed_in(served_at, scope="read") as reader:
        team = reader.get(TEAM)
        assert team.status_code == 200
        page = team.text
        assert re.search(r"<h1[^>]*>Team 7</h1>", page)  # the first spelling, for a person to read
        assert '<code class="wrap" id="subject-id">team 7</code>' in page
        assert 'id="names"' in page and "Names and merges" in page
        assert _member_links(page) == ["ilse"]  # now: Mira left in May
        assert len(re.findall(r'<g class="version ', _wide(page))) == 3  # Mira's member, cut and replaced; Ilse's
        assert _nodes(page) == ["team 7", "ilse"]
        narrow = _narrow(page)  # the same, drawn for a phone
        assert len(re.findall(r'<g class="version ', narrow)) == 3
        assert re.findall(r'<g class="node(?: centre)?" data-subject="([^"]+)"', narrow) == ["team 7", "ilse"]
        assert re.search(r'<svg class="neighbourhood narrow" viewBox="0 0 360 ', narrow)
        assert 'data-neighbour="ilse" data-out="true" data-in="false"' in page

        april = reader.get(TEAM, params={"at": "2026-04-01T00:00:00Z"}).text
        assert sorted(_member_links(april)) == ["ilse", "mira%20jansen"]
        assert sorted(_nodes(april)) == ["ilse", "mira jansen", "team 7"]
        assert '<a href="/ui/subjects/ilse?at=2026-04-01T00%3A00%3A00Z">' in april  # a picture's link keeps the instant
        believed = reader.get(TEAM, params={"at": "2026-05-25T00:00:00Z", "known_at": "2026-05-31T00:00:00Z"}).text
        assert sorted(_member_links(believed)) == ["ilse", "mira%20jansen"]  # the retraction was recorded in June
        february = reader.get(TEAM, params={"at": "2026-02-01T00:00:00Z"}).text
        assert _member_links(february) == ["mira%20jansen"]

        mira = reader.get("/ui/subjects/mira%20jansen", params={"at": "2026-04-01T00:00:00Z"}).text
        assert re.search(r"<h1[^>]*>Mira Jansen</h1>", mira)
        inward = re.search(r'<ul id="inward">(.*?)</ul>', mira, re.S)
        assert inward and '<a href="/ui/subjects/team%207?at=2026-04-01T00%3A00%3A00Z">Team 7</a>' in inward.group(1)
        assert "<code>members</code>" in inward.group(1)
        assert re.search(r'<tr data-attribute="city">.*?"Oslo".*?t1', mira, re.S)
        assert 'data-neighbour="team 7" data-out="false" data-in="true"' in mira
        after = reader.get("/ui/subjects/mira%20jansen").text  # no longer a member: no inbound relation now
        assert 'id="inward"' not in after and "No other subject names this one" in after

        acme = reader.get("/ui/subjects/acme%20corp").text
        outward = re.search(r'<ul id="outward">(.*?)</ul>', acme, re.S)
        assert outward and '<a href="/ui/subjects/cogs">cogs</a>' in outward.group(1)  # a value keeps no spelling
        cogs = reader.get("/ui/subjects/cogs")  # known only as the value of a relation
        assert cogs.status_code == 200 and '<a href="/ui/subjects/acme%20corp">Acme Corp</a>' in cogs.text

        overview = reader.get("/ui/").text
        assert f'<a href="{TEAM}">Team 7</a>' in overview  # by display name, as every other page
        key = reader.get("/ui/keys/team%207/members")  # a set's key page draws every member's versions
        assert key.status_code == 200 and len(re.findall(r'<g class="version ', _wide(key.text))) == 3
        assert '<a href="/ui/subjects/team%207">team 7</a>' in key.text


def test_names_match_after_normalisation_and_unknown_subjects_say_nothing(served_at: Served,
                                                                          clock: ManualClock) -> None:
    seed_shape(served_at.memory, clock)
    served_at.memory.write("acme", "R&D/Ops <b>", "city", "Paris", "2026-06-01T00:00:00Z", "t1")
    with signed_in(served_at) as admin:
        spelled = admin.get("/ui/subjects/%20TEAM%20%207%20")
        assert spelled.status_code == 200 and _member_links(spelled.text) == ["ilse"]
        by_query = admin.get("/ui/subject", params={"subject": "r&d/ops <b>"})
        assert by_query.status_code == 200
        assert "<h1 class=\"wrap\">R&amp;D/Ops &lt;b&gt;</h1>" in by_query.text  # stored names are escaped
        missing = admin.get("/ui/subjects/nobody%20at%20all")
        assert missing.status_code == 404 and "nobody at all" not in missing.text
        bad = admin.get(TEAM, params={"at": "next tuesday"})
        assert bad.status_code == 422 and "at" in html.unescape(bad.text)
    with signed_in(served_at, tenant="globex") as other:
        foreign = other.get(TEAM)
        assert foreign.status_code == 404 and "Team 7" not in foreign.text and "ilse" not in foreign.text


def test_erased_and_revoked_subjects_leave_the_page(served_at: Served, clock: ManualClock) -> None:
    seed_shape(served_at.memory, clock)
    served_at.memory.consent("acme", "ilse", False)
    with signed_in(served_at) as admin:
        team = admin.get(TEAM).text
        assert _member_links(team) == [] and "ilse" not in _nodes(team)  # a member whose consent is revoked
        served_at.memory.forget_subject("acme", "team 7")
        assert admin.get(TEAM).status_code == 404
        mira = admin.get("/ui/subjects/mira%20jansen", params={"at": "2026-04-01T00:00:00Z"}).text
        assert 'id="inward"' not in mira


def test_review_shows_an_alias_proposal_and_an_admin_confirming_it_records_the_alias(served: Served) -> None:
    memory = served.memory
    memory.add_episode("acme", "e0", "2026-05-01T00:00:00Z", "Mira Jansen lives in Oslo.")
    memory.write("acme", "Mira Jansen", "city", "Oslo", "2026-05-01T00:00:00Z", "e0")
    reply = {"updates": [], "aliases": [{"evidence": "Mira Jansen goes by Mimi", "name": "Mimi",
                                         "subject": "mira jansen", "confidence": 0.9}]}
    memory.remember("acme", "e1", "2026-06-01T00:00:00Z", "Mira Jansen goes by Mimi.",
                    client=ScriptedClient.of([reply]), policy=ExtractionPolicy())
    (alias,) = memory.held("acme")
    with signed_in(served, scope="write") as writer:  # a write key may not merge subjects
        review = writer.get("/ui/review").text
        assert '"Mimi" as another name of <a href="/ui/subjects/mira%20jansen">mira jansen</a> (alias)' in review
        assert f"Confirm candidate {alias.id}" not in review and "it needs an admin key" in review
        assert f"Reject candidate {alias.id}" in review
        csrf = re.search(r'name="csrf" value="([^"]+)"', review)
        assert csrf
        refused = writer.post(f"/ui/review/{alias.id}/confirm", data={"csrf": csrf.group(1)})
        assert refused.status_code == 403, refused.text
        assert "needs an admin key" in refused.text
    assert [held.id for held in memory.held("acme")] == [alias.id]
    assert memory.get("acme", "Mimi", "city") is None
    with signed_in(served, scope="admin") as admin:
        review = admin.get("/ui/review").text
        assert f"Confirm candidate {alias.id}" in review
        csrf = re.search(r'name="csrf" value="([^"]+)"', review)
        assert csrf
        confirmed = admin.post(f"/ui/review/{alias.id}/confirm", data={"csrf": csrf.group(1)})
        assert confirmed.status_code in (200, 303), confirmed.text
        page = admin.get("/ui/subjects/mira%20jansen").text
        assert "mimi means mira jansen since" in html.unescape(page)
    assert memory.held("acme") == []
    assert memory.get("acme", "Mimi", "city").value == "Oslo"  # type: ignore[union-attr]


def test_review_lists_the_subjects_an_ambiguous_name_could_mean_and_writes_the_one_chosen(served: Served) -> None:
    memory = served.memory
    memory.add_episode("acme", "e0", "2026-05-01T00:00:00Z", "Mira Jansen and Mira Kowalski.")
    for name, city in (("Mira Jansen", "Oslo"), ("Mira Kowalski", "Gdansk")):
        memory.write("acme", name, "city", city, "2026-05-01T00:00:00Z", "e0")
    text = "Mira Jansen met Mira Kowalski. Mira moved to Berlin."
    reply = {"updates": [{"evidence": "Mira moved to Berlin.", "subject": "Mira", "attribute": "city",
                          "current_value": None, "change": "new", "value": "Berlin", "valid_from": None,
                          "confidence": 0.9}]}
    memory.remember("acme", "e1", "2026-06-01T00:00:00Z", text, client=ScriptedClient.of([reply]),
                    policy=ExtractionPolicy())
    (held,) = memory.held("acme")
    with signed_in(served, scope="write") as writer:
        review = writer.get("/ui/review").text
        choices = re.search(rf'<fieldset class="choices" id="choices-{held.id}">(.*?)</fieldset>', review, re.S)
        assert choices and re.findall(r'value="([^"]+)" required', choices.group(1)) == [
            "mira jansen", "mira kowalski", "mira"]
        assert "ambiguous name" in review
        csrf = re.search(r'name="csrf" value="([^"]+)"', review)
        assert csrf
        done = writer.post(f"/ui/review/{held.id}/confirm", data={"csrf": csrf.group(1), "subject": "mira kowalski"})
        assert done.status_code == 303
        flash = writer.get("/ui/review").text
        assert 'mira kowalski.city = "Berlin" is written' in html.unescape(flash)
    assert memory.get("acme", "mira kowalski", "city").value == "Berlin"  # type: ignore[union-attr]
    assert memory.get("acme", "mira jansen", "city").value == "Oslo"  # type: ignore[union-attr]
    memory.add_episode("acme", "e2", "2026-06-02T00:00:00Z", "Mira Jansen met Mira Kowalski. Mira moved to Rome.")
    reply["updates"][0] = {**reply["updates"][0], "evidence": "Mira moved to Rome.", "value": "Rome"}
    memory.extract("acme", "e2", client=ScriptedClient.of([reply]), policy=ExtractionPolicy())
    (again,) = memory.held("acme")
    with served.client(scope="write") as api:  # the HTTP API takes the choice too
        bad = api.post(f"/v1/held/{again.id}/confirm", params={"subject": "  "})
        assert bad.status_code == 422 and bad.json()["field"] == "subject"
        written = api.post(f"/v1/held/{again.id}/confirm", params={"subject": "Mira Jansen"})
        assert written.status_code == 201, written.text
        assert written.json()["assertion"]["subject"] == "mira jansen"
    assert memory.get("acme", "mira jansen", "city").value == "Rome"  # type: ignore[union-attr]


def test_a_subject_reached_through_an_alias_is_the_subject_it_means(served: Served) -> None:
    """``/ui/subjects/MJ`` is Mira's page, as every JSON answer says, "also called MJ";
    a name that means no other subject shows no such line."""
    memory = served.memory
    memory.add_episode("acme", "a1", "2026-06-01T00:00:00Z", "Mira Jansen lives in Oslo.")
    memory.write("acme", "Mira Jansen", "city", "Oslo", "2026-06-01T00:00:00Z", "a1")
    memory.alias("acme", "MJ", "Mira Jansen")
    with signed_in(served, "acme", "read") as client:
        page = client.get("/ui/subjects/MJ")
        assert page.status_code == 200
        assert re.search(r"<h1[^>]*>Mira Jansen</h1>", page.text)
        assert '<code class="wrap" id="subject-id">mira jansen</code>' in page.text
        assert 'also called <strong class="wrap">MJ</strong>' in page.text
        assert '"Oslo"' in page.text
        direct = client.get("/ui/subjects/mira%20jansen")
        assert direct.status_code == 200 and "also called" not in direct.text
    assert memory.resolve("acme", "MJ") == "mira jansen"


def test_confirming_a_held_alias_over_http_needs_an_admin_key_and_a_held_fact_a_write_key(served: Served) -> None:
    memory = served.memory
    memory.declare("acme", "diagnosis", "string", sensitive=True)
    memory.add_episode("acme", "e0", "2026-05-01T00:00:00Z", "Mira Jansen lives in Oslo.")
    memory.write("acme", "Mira Jansen", "city", "Oslo", "2026-05-01T00:00:00Z", "e0")
    reply = {"updates": [{"evidence": "Mimi has the flu.", "subject": "Mira Jansen", "attribute": "diagnosis",
                          "current_value": None, "change": "new", "value": "flu", "valid_from": None,
                          "confidence": 0.9}],
             "aliases": [{"evidence": "Mira Jansen goes by Mimi", "name": "Mimi", "subject": "mira jansen",
                          "confidence": 0.9}]}
    memory.remember("acme", "e1", "2026-06-01T00:00:00Z", "Mira Jansen goes by Mimi. Mimi has the flu.",
                    client=ScriptedClient.of([reply]), policy=ExtractionPolicy())
    held = {row.attribute: row for row in memory.held("acme")}
    alias = next(row for row in held.values() if row.attribute != "diagnosis")
    with served.client(scope="write") as writer:
        refused = writer.post(f"/v1/held/{alias.id}/confirm")
        assert refused.status_code == 403 and refused.json()["kind"] == "forbidden", refused.text
        fact = writer.post(f"/v1/held/{held['diagnosis'].id}/confirm")
        assert fact.status_code == 201 and fact.json()["assertion"]["value"] == "flu", fact.text
    assert [row.id for row in memory.held("acme")] == [alias.id]
    assert memory.get("acme", "Mimi", "city") is None
    with served.client(scope="admin") as admin:
        merged = admin.post(f"/v1/held/{alias.id}/confirm")
        assert merged.status_code == 201 and merged.json()["subject"] == "mira jansen", merged.text
    assert memory.held("acme") == []
    assert memory.get("acme", "Mimi", "city").value == "Oslo"  # type: ignore[union-attr]
