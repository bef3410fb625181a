"""Which subjects a question names, on both backends: ids as sgam matches them, the
longest name where names overlap, a subject that only a relation names."""

from __future__ import annotations

from sgam import Memory
from sgam.recall.subjects import MAX_NAMED, candidate_spans, named_subjects

T = "acme"
T0 = "2026-01-01T00:00:00Z"


def test_every_run_of_words_is_a_candidate_as_written_and_bare() -> None:
    names = {name for _, _, name in candidate_spans("Is Mira Jansen's team (Team  7) busy?")}
    assert {"mira jansen", "mira jansen's", "team 7", "(team 7)", "is", "busy"} <= names
    assert all(end - start <= 4 for start, end, _ in candidate_spans("a b c d e f g"))


def test_named_subjects_follow_the_question(store_url: str) -> None:
    with Memory(store_url) as memory:
        memory.add_episode(T, "e1", T0, "Mira Jansen works with Mira; Acme buys from Cogs.")
        memory.declare(T, "supplier", "subject")
        memory.write(T, "Mira Jansen", "city", "Oslo", T0, "e1")
        memory.write(T, "mira", "city", "Rome", T0, "e1")
        memory.write(T, "ACME", "supplier", "Cogs", T0, "e1")
        relations = [s for s in memory.schema(T)[0] if s.attribute == "supplier"]
        with memory.ledger.read(T, "test") as reader:
            assert named_subjects(reader, "Does MIRA  JANSEN know mira?", relations) == ["mira jansen", "mira"]
            assert named_subjects(reader, "Who is Acme's supplier?", relations) == ["acme"]
            assert named_subjects(reader, "Who buys from Cogs?", relations) == ["cogs"]  # no key of its own
            assert named_subjects(reader, "Who buys from Cogs?", []) == []
            assert named_subjects(reader, "Nobody here", relations) == []
        for i in range(MAX_NAMED + 2):
            memory.write(T, f"s{i}", "city", "Oslo", T0, "e1")
        with memory.ledger.read(T, "test") as reader:
            many = " and ".join(f"s{i}" for i in range(MAX_NAMED + 2))
            assert named_subjects(reader, many, relations) == [f"s{i}" for i in range(MAX_NAMED)]


def test_a_subject_named_in_a_spelling_the_index_misses_still_brings_its_facts(store_url: str) -> None:
    """``Straße`` is the id ``strasse``: the question's words do not match the key's, its
    name does, and the question's other words still choose the attribute."""
    with Memory(store_url) as memory:
        memory.add_episode(T, "e1", T0, "Herr Straße zog nach Wien.")
        memory.declare(T, "salary", "integer", sensitive=True)
        memory.write(T, "Straße", "city", "Wien", T0, "e1")
        memory.write(T, "Straße", "employer", "Acme", T0, "e1")
        memory.write(T, "Straße", "salary", 5000, T0, "e1")
        asked = memory.recall(T, "Where does Straße live?", budget=2000)
        alone = memory.recall(T, "STRASSE?", budget=2000)
    assert [(i.subject, i.attribute, i.value, i.citation.episode_id) for i in asked.items if i.kind == "fact"] == [
        ("strasse", "city", "Wien", "e1")]
    assert asked.items[0].subject_name == "Straße"
    assert sorted(i.attribute for i in alone.items if i.kind == "fact") == ["city", "employer"]  # salary: sensitive
