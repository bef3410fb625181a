"""Extraction resolves names, never guesses (both backends, scripted model replies): the
prompt shows the known subjects the episode names; a known subject spelled another way
is that subject; a name that could be more than one subject waits for a person with the
candidates listed; an alias the model proposes waits too; a set's retract names its member."""

from __future__ import annotations

import json
from typing import Any

from sgam import Memory, SubjectName
from sgam.extraction import ExtractionPolicy, Outcome, ScriptedClient
from sgam.extraction.names import known_subjects
from sgam.extraction.prompt import build_request, gather_context

AT = "2026-06-01T09:00:00Z"
MET = "Mira Jansen and Mira Kowalski met in Oslo. Mira moved to Berlin."


def update(evidence: str, subject: str, attribute: str, value: Any, **extra: Any) -> dict[str, Any]:
    return {"evidence": evidence, "subject": subject, "attribute": attribute, "current_value": None,
            "change": "new", "value": value, "valid_from": None, "confidence": 0.9, **extra}


def _people(memory: Memory) -> None:
    memory.add_episode("acme", "e0", "2026-05-01T00:00:00Z", "Mira Jansen, Mira Kowalski and Ola Nordmann.")
    for name, city in (("Mira Jansen", "Oslo"), ("Mira Kowalski", "Gdansk"), ("Ola Nordmann", "Bergen")):
        memory.write("acme", name, "city", city, "2026-05-01T00:00:00Z", "e0")


def _remember(memory: Memory, episode: str, text: str, reply: dict[str, Any],
              policy: ExtractionPolicy | None = None) -> Any:
    done = memory.remember("acme", episode, AT, text, client=ScriptedClient.of([reply]),
                           policy=policy or ExtractionPolicy())
    assert done.extraction is not None
    return done.extraction


def test_the_prompt_shows_the_known_subjects_the_episode_names(memory: Memory) -> None:
    _people(memory)
    memory.consent("acme", "ola nordmann", False)
    episode = memory.add_episode("acme", "e1", AT, "MIRA JANSEN met Ola Nordmann and Mira in Oslo.")
    with memory.backend.read("acme") as reader:
        context = gather_context(reader, episode)
    assert context.subjects == {"mira jansen": "Mira Jansen"}  # a revoked subject is never shown
    assert {(f.subject, f.value) for f in context.facts} == {("mira jansen", "Oslo")}  # a two-word subject's facts
    user = build_request(episode, context).messages[1]["content"]
    known = user.split("known subjects:\nBEGIN DATA\n")[1].split("\nEND DATA")[0]
    assert [json.loads(line) for line in known.splitlines()] == [{"id": "mira jansen", "name": "Mira Jansen"}]
    assert "Nordmann" not in known and "Bergen" not in user


def test_another_spelling_of_a_known_subject_is_that_subject(memory: Memory) -> None:
    _people(memory)
    text = "MIRA  JANSEN moved to Berlin."
    extraction = _remember(memory, "e1", text, {"updates": [update(text, "MIRA  JANSEN", "city", "Berlin")]})
    (decision,) = extraction.decisions
    assert decision.outcome is Outcome.ACCEPTED and decision.candidate["subject"] == "mira jansen"
    assert "'MIRA  JANSEN' is 'mira jansen'" in (decision.reason or "")
    assert memory.get("acme", "mira jansen", "city").value == "Berlin"  # type: ignore[union-attr]
    assert memory.display_names("acme", ["mira jansen"]) == {"mira jansen": "Mira Jansen"}  # first spelling kept


def test_an_ambiguous_name_waits_with_its_candidates_and_a_person_chooses(memory: Memory) -> None:
    _people(memory)
    reply = {"updates": [update("Mira moved to Berlin.", "Mira", "city", "Berlin"),
                         update("Mira Jansen and Mira Kowalski met in Oslo.", "mira jansen", "met_in", "Oslo")]}
    extraction = _remember(memory, "e1", MET, reply)
    held, written = extraction.decisions
    assert held.outcome is Outcome.PENDING and held.candidates == ["mira jansen", "mira kowalski"]
    assert "'Mira' is ambiguous" in (held.reason or "") and "'mira kowalski'" in (held.reason or "")
    assert written.outcome is Outcome.ACCEPTED  # the other update is not held back with it
    for subject in ("mira", "mira jansen", "mira kowalski"):  # never merged by the model
        value = memory.get("acme", subject, "city")
        assert value is None or value.value != "Berlin"
    (waiting,) = memory.held("acme")
    assert (waiting.subject, waiting.attribute, waiting.value) == ("mira", "city", "Berlin")
    result = memory.confirm("acme", waiting.id, subject="Mira Kowalski")
    assert result.assertion is not None and result.assertion.subject == "mira kowalski"
    assert memory.get("acme", "mira kowalski", "city").value == "Berlin"  # type: ignore[union-attr]
    assert memory.get("acme", "mira jansen", "city").value == "Oslo"  # type: ignore[union-attr]
    assert memory.get("acme", "mira", "city") is None and memory.held("acme") == []


def test_without_the_hold_an_ambiguous_name_is_its_own_subject(memory: Memory) -> None:
    _people(memory)
    reply = {"updates": [update("Mira moved to Berlin.", "Mira", "city", "Berlin")]}
    (decision,) = _remember(memory, "e1", MET, reply, ExtractionPolicy.off()).decisions
    assert decision.outcome is Outcome.ACCEPTED
    assert memory.get("acme", "mira", "city").value == "Berlin"  # type: ignore[union-attr]
    assert memory.get("acme", "mira jansen", "city").value == "Oslo"  # type: ignore[union-attr]


def test_a_new_name_and_an_exact_known_one_are_not_held(memory: Memory) -> None:
    _people(memory)
    memory.write("acme", "Mira", "city", "Rome", "2026-05-01T00:00:00Z", "e0")  # "mira" is a subject of its own
    reply = {"updates": [update("Mira moved to Berlin.", "mira", "city", "Berlin"),
                         update("met in Oslo", "Kari", "city", "Oslo")]}
    decisions = _remember(memory, "e1", MET, reply).decisions
    assert [d.outcome for d in decisions] == [Outcome.ACCEPTED, Outcome.ACCEPTED]
    assert memory.get("acme", "mira", "city").value == "Berlin"  # type: ignore[union-attr]
    assert memory.get("acme", "kari", "city").value == "Oslo"  # type: ignore[union-attr]
    assert memory.display_names("acme", ["kari"]) == {"kari": "Kari"}  # the model's spelling names a new subject


def test_an_alias_the_model_proposes_waits_for_a_person(memory: Memory) -> None:
    _people(memory)
    text = "Mira Jansen goes by Mimi at work."
    reply = {"updates": [], "aliases": [
        {"evidence": "Mira Jansen goes by Mimi", "name": "Mimi", "subject": "Mira Jansen", "confidence": 0.8},
        {"evidence": "not in the text", "name": "MJ", "subject": "mira jansen", "confidence": 0.8},
        {"evidence": "Mimi at work", "name": "Mimi", "subject": "nobody known", "confidence": 0.8},
        {"evidence": "Mira Jansen", "name": "MIRA JANSEN", "subject": "mira jansen", "confidence": 0.8},
    ]}
    decisions = _remember(memory, "e1", text, reply).decisions
    assert [d.outcome for d in decisions] == [Outcome.PENDING, Outcome.REJECTED, Outcome.REJECTED, Outcome.REJECTED]
    assert "does not occur verbatim" in (decisions[1].reason or "")
    assert "names no subject recorded" in (decisions[2].reason or "")
    assert "already the subject" in (decisions[3].reason or "")
    (alias,) = memory.held("acme")
    assert (alias.subject, alias.change, alias.value, alias.attribute) == ("mira jansen", "alias", "Mimi", "")
    assert memory.get("acme", "mimi", "city") is None  # held: nothing changed yet
    step = memory.confirm("acme", alias.id)  # an alias is a step, not an assertion: the step answers
    assert isinstance(step, SubjectName)
    assert (step.tenant, step.name, step.subject, step.until, step.decided_by) == (
        "acme", "mimi", "mira jansen", None, f"review of held {alias.id}")
    assert step == memory.names("acme", "mira jansen")[0]
    assert memory.resolve("acme", "Mimi") == "mira jansen"
    assert memory.get("acme", "mimi", "city").value == "Oslo"  # type: ignore[union-attr]
    assert [n.decided_by for n in memory.names("acme", "mira jansen")] == [f"review of held {alias.id}"]


def test_a_retract_of_a_set_names_the_member(memory: Memory) -> None:
    memory.declare("acme", "languages", "string", cardinality="many")
    memory.add_episode("acme", "e0", "2026-05-01T00:00:00Z", "Ola speaks Norwegian and German.")
    for language in ("Norwegian", "German"):
        memory.write("acme", "ola", "languages", language, "2026-05-01T00:00:00Z", "e0")
    text = "Ola no longer speaks German."
    reply = {"updates": [update(text, "ola", "languages", "German", change="retract"),
                         update(text, "ola", "languages", None, change="retract")]}
    named, unnamed = _remember(memory, "e1", text, reply).decisions
    assert named.outcome is Outcome.ACCEPTED
    assert unnamed.outcome is Outcome.REJECTED and "names the member to retract" in (unnamed.reason or "")
    assert [m.value for m in memory.members("acme", "ola", "languages")] == ["Norwegian"]


def test_the_prompt_shows_an_alias_as_the_subject_it_means(memory: Memory) -> None:
    memory.add_episode("acme", "e0", "2026-05-01T00:00:00Z", "Mira Jansen lives in Oslo.")
    memory.write("acme", "Mira Jansen", "city", "Oslo", "2026-05-01T00:00:00Z", "e0")
    memory.alias("acme", "MJ", "Mira Jansen")
    with memory.ledger.read("acme") as reader:
        known = known_subjects(reader, "MJ moved to Bergen.")
    assert known.names == {"mira jansen": "Mira Jansen, also called MJ"}
