"""Recall of sets and relations on both backends: the members and relations holding at
the question's instant come before search evidence, cited to their source episodes;
consent and the question's own words decide what is said."""

from __future__ import annotations

import pytest

from sgam import Memory
from sgam.recall import RecallItem

T = "acme"
T0, T1, T2, T3 = ("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z",
                  "2026-04-01T00:00:00Z")
SUPPLIERS = "Which suppliers does Acme have, and who else buys from Cogs?"


def _supply_chain(memory: Memory) -> None:
    memory.add_episodes(T, [
        {"id": "e1", "at": T0, "text": "Acme now buys gears from Cogs and bolts from Bolts Ltd."},
        {"id": "e2", "at": T0, "text": "Zed signed a deal with Cogs."},
        {"id": "e3", "at": T0, "text": "Team 7 is Mira and Ola."},
        {"id": "e4", "at": T2, "text": "Acme dropped Bolts Ltd."},
    ] + [{"id": f"n{i}", "at": T0, "text": f"Cogs shipped crate {i} on time"} for i in range(12)])
    memory.declare(T, "supplier", "subject", cardinality="many")
    memory.declare(T, "members", "string", cardinality="many")
    memory.write(T, "Acme", "supplier", "Cogs", T0, "e1")
    memory.write(T, "acme", "supplier", "Bolts Ltd", T0, "e1")
    memory.write(T, "Zed", "supplier", "cogs", T0, "e2")
    memory.retract(T, "acme", "supplier", T2, "e4", value="bolts ltd")
    for who in ("Mira", "Ola"):
        memory.write(T, "Team 7", "members", who, T0, "e3")
    memory.write(T, "acme", "city", "Oslo", T0, "e1")


def _facts(items: list[RecallItem]) -> list[tuple[str | None, str | None, object, str | None]]:
    return [(i.subject, i.attribute, i.value, i.citation.episode_id) for i in items if i.kind == "fact"]


def test_members_and_relations_come_before_evidence_cited_to_their_sources(store_url: str) -> None:
    with Memory(store_url) as memory:
        _supply_chain(memory)
        result = memory.recall(T, SUPPLIERS, at=T1, budget=4000)
    assert _facts(result.items) == [("acme", "supplier", "bolts ltd", "e1"), ("acme", "supplier", "cogs", "e1"),
                                    ("zed", "supplier", "cogs", "e2")]
    kinds = [item.kind for item in result.items]
    assert kinds[:3] == ["fact"] * 3 and set(kinds[3:]) == {"evidence"}
    assert [i.citation.episode_id for i in result.items if i.kind == "evidence"][:2] == ["e1", "e2"]
    assert result.text.index('"zed"') < result.text.index("Evidence")
    assert all(not item.superseded for item in result.items if item.kind == "fact")


def test_the_shape_is_read_at_the_question_instant_as_known_then(store_url: str) -> None:
    with Memory(store_url) as memory:
        _supply_chain(memory)
        now = memory.recall(T, SUPPLIERS, at=T3, budget=4000)
        assert [f[2] for f in _facts(now.items) if f[0] == "acme"] == ["cogs"]  # Bolts Ltd was dropped at T2
        before = memory.recall(T, SUPPLIERS, at=T3, known_at=memory.history(T, "zed", "supplier")[0].recorded_at,
                               budget=4000)
        assert [f[2] for f in _facts(before.items) if f[0] == "acme"] == ["bolts ltd", "cogs"]  # not yet retracted
        assert _facts(memory.recall(T, SUPPLIERS, at="2025-12-01T00:00:00Z", budget=4000).items) == []


def test_a_set_is_read_whole_for_its_subject_or_a_member_the_question_names(store_url: str) -> None:
    with Memory(store_url) as memory:
        _supply_chain(memory)
        team = memory.recall(T, "Who is in TEAM  7?", at=T1, budget=4000)
        by_member = memory.recall(T, "Which team is Ola on?", at=T1, budget=4000)
    expected = [("team 7", "members", "Mira", "e3"), ("team 7", "members", "Ola", "e3")]
    assert _facts(team.items) == expected
    assert _facts(by_member.items) == expected
    assert team.items[0].subject_name == "Team 7"


ATLAS_ASKED = ["who is in team atlas?", "Members of Atlas", "Who belongs to Atlas?", "Who's on the Atlas team?",
               "Which people are part of Atlas?", "List everyone in Atlas", "Who works on Atlas?"]


@pytest.fixture
def atlas(store_url: str) -> Memory:
    memory = Memory(store_url)
    memory.add_episodes(T, [{"id": "e1", "at": T0, "text": "Atlas is Mira, Ola and Ben."},
                            {"id": "e2", "at": T0, "text": "Atlas has a budget of 10k."}])
    memory.declare(T, "crew", "string", cardinality="many")  # no description: the set's words must do
    for who in ("Mira", "Ola", "Ben"):
        memory.write(T, "Atlas", "crew", who, T0, "e1")
    memory.write(T, "Atlas", "budget", 10_000, T0, "e2")
    return memory


@pytest.mark.parametrize("question", ATLAS_ASKED)
def test_a_question_asking_for_a_groups_members_gets_the_sets_exact_state(atlas: Memory, question: str) -> None:
    with atlas:
        result = atlas.recall(T, question, at=T1, budget=4000)
    assert [f for f in _facts(result.items) if f[1] == "crew"] == [
        ("atlas", "crew", "Ben", "e1"), ("atlas", "crew", "Mira", "e1"), ("atlas", "crew", "Ola", "e1")]


def test_a_question_about_a_groups_other_facts_gets_none_of_its_members(atlas: Memory) -> None:
    with atlas:
        result = atlas.recall(T, "What is the budget of Atlas?", at=T1, budget=4000)
    assert _facts(result.items) == [("atlas", "budget", 10_000, "e2")]


def test_a_question_about_something_else_gets_none_of_the_shape(store_url: str) -> None:
    with Memory(store_url) as memory:
        _supply_chain(memory)
        result = memory.recall(T, "Which city is Acme in?", at=T1, budget=4000)
    assert _facts(result.items) == [("acme", "city", "Oslo", "e1")]


def test_revoked_consent_hides_the_members_and_links_that_name_a_subject(store_url: str) -> None:
    with Memory(store_url) as memory:
        _supply_chain(memory)
        memory.consent(T, "cogs", False)
        hidden = _facts(memory.recall(T, SUPPLIERS, at=T1, budget=4000).items)
        memory.consent(T, "cogs", True)
        memory.consent(T, "zed", False)
        no_zed = _facts(memory.recall(T, SUPPLIERS, at=T1, budget=4000).items)
    assert hidden == [("acme", "supplier", "bolts ltd", "e1")]
    assert no_zed == [("acme", "supplier", "bolts ltd", "e1"), ("acme", "supplier", "cogs", "e1")]


def test_a_purpose_reads_its_own_members_where_it_has_any(store_url: str) -> None:
    with Memory(store_url) as memory:
        _supply_chain(memory)
        memory.write(T, "team 7", "members", "Per", T0, "e3", purpose="payroll")
        general = _facts(memory.recall(T, "Who is in Team 7?", at=T1, budget=4000).items)
        payroll = memory.recall(T, "Who is in Team 7?", at=T1, budget=4000, purpose="payroll")
        other = _facts(memory.recall(T, "Who is in Team 7?", at=T1, budget=4000, purpose="ads").items)
    assert [f[2] for f in general] == ["Mira", "Ola"] and [f[2] for f in other] == ["Mira", "Ola"]
    assert [(i.value, i.citation.episode_id) for i in payroll.items if i.kind == "fact"] == [("Per", "e3")]
