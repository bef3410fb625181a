"""Question signals and ranking features, each alone and through ``Memory.search``."""

from __future__ import annotations

from typing import Any

import pytest

from sgam import Memory
from sgam.search import SearchConfig
from sgam.search.embedders import embed_query
from sgam.search.signals import (
    TermMatcher,
    asks_about_present,
    asks_about_time,
    feedback_terms,
    light_stem,
    mentions_time,
    same_statement,
    session_coverage,
    word_set,
)

T = "acme"


@pytest.mark.parametrize(("question", "present"), [
    ("Where does Mira live?", True),
    ("What is Mira's job now?", True),
    ("Where did Mira live before the move?", False),
    ("Where was Mira living in 2021?", False),
    ("When does Mira move?", False),
    ("Mira's first city", False),
])
def test_present_tense_questions(question: str, present: bool) -> None:
    assert asks_about_present(question) is present


def test_time_questions_and_time_mentions() -> None:
    assert asks_about_time("When did Ann go to Paris?")
    assert asks_about_time("What year did Ann move?")
    assert not asks_about_time("Why did Ann go to Paris?")
    assert mentions_time("I went there yesterday")
    assert mentions_time("Back in 2019 we met")
    assert not mentions_time("I like painting")


def test_feedback_terms_come_from_top_documents_not_the_question() -> None:
    texts = ["I adopted a puppy, the puppy is a beagle", "The beagle loves the park",
             "Beagles bark at squirrels in the park"]
    extra = feedback_terms(texts, ["dog"], 3)
    assert set(extra[:2]) == {"puppy", "beagle"} and "dog" not in extra
    assert feedback_terms(texts, ["beagle"], 0) == []
    assert "ann" not in feedback_terms(["ann ann ann likes tea"], [], 5, frozenset({"ann"}))


@pytest.mark.parametrize("text", [
    "Mira moved to Oslo; she MOVES often, loves moving and painted paintings.",
    "A painter's studies: studied, studying, cities_and_city, plays played player's",
    "Nothing here matches, not even the porch or the moo.",
])
def test_term_matcher_agrees_with_stemming_every_word(text: str) -> None:
    terms = ["move", "painting", "study", "city", "play", "moose", "paint"]
    wanted = {light_stem(term): [t for t in terms if light_stem(t) == light_stem(term)] for term in terms}
    words = {w.lower() for w in text.replace("_", " ").replace("'", " ").replace(";", " ").split()}
    words = {w.strip(".,:") for w in words}
    expected = {term for word in words for term in wanted.get(light_stem(word), [])}
    assert TermMatcher(terms).matched(text) == expected
    assert TermMatcher([]).matched(text) == frozenset()


def test_a_question_is_embedded_once_for_the_next_few_asks(hashing: Any) -> None:
    first = embed_query(hashing, "where does Mira live now?")
    calls = hashing.calls
    again = embed_query(hashing, "where does Mira live now?")
    assert again is first and hashing.calls == calls and not first.flags.writeable
    embed_query(hashing, "where did Mira live before?")
    assert hashing.calls == calls + 1


def test_session_coverage_rewards_sessions_covering_more_words() -> None:
    hits = {"violin": ["s1", "s2"], "lessons": ["s1", "s3", "s3"]}
    scores = session_coverage(hits, 200)
    assert scores["s1"] > scores["s2"] and scores["s1"] > scores["s3"]
    assert session_coverage({}, 200) == {}


def _conversation(memory: Memory) -> None:
    memory.add_episodes(T, [
        {"id": "a1", "at": "2024-01-01T10:00:00Z", "text": "I signed up for violin", "speaker": "ann",
         "session": "s1"},
        {"id": "a2", "at": "2024-01-01T10:00:01Z", "text": "The lessons start on Monday", "speaker": "ann",
         "session": "s1"},
        {"id": "b1", "at": "2024-02-01T10:00:00Z", "text": "My lessons in cooking were fun", "speaker": "bob",
         "session": "s2"},
        {"id": "b2", "at": "2024-02-01T10:00:01Z", "text": "We baked bread", "speaker": "bob", "session": "s2"},
    ])


def test_search_many_equals_search_under_each_config(store_url: str, hashing: Any) -> None:
    configs = {
        "keyword": SearchConfig(vector=False),
        "context": SearchConfig(neighbour_weight=0.5, session_doc_weight=1.0, speaker_weight=0.1),
        "feedback": SearchConfig(feedback_terms=4, feedback_weight=0.5, feedback_docs=2),
        "present": SearchConfig(present_first=True, when_weight=0.2),
        "dated": SearchConfig(date_weight=1.0),
    }
    with Memory(store_url, embedder=hashing) as memory:
        _conversation(memory)
        for question in ("When do the violin lessons start?", "What does Ann play?", "bread",
                         "What did Bob bake in February 2024?"):
            many = memory.search_many(T, question, configs, limit=10)
            for name, config in configs.items():
                assert many[name] == memory.search(T, question, config=config, limit=10)


def test_session_coverage_finds_the_turn_whose_session_covers_the_question(store_url: str) -> None:
    covered = SearchConfig(vector=False, session_doc_weight=1.0)
    with Memory(store_url) as memory:
        _conversation(memory)
        plain = [h.episode_id for h in memory.search(T, "Ann's violin lessons", config=SearchConfig(vector=False))]
        lifted = [h.episode_id for h in memory.search(T, "Ann's violin lessons", config=covered)]
        assert lifted.index("a2") < lifted.index("b1")
        assert plain.index("a2") >= lifted.index("a2")


def test_present_question_ranks_the_newest_move_first(store_url: str) -> None:
    cities = ["Lyon", "Porto", "Oslo", "Riga", "Graz", "Turin", "Ghent", "Bern", "Cork", "Bilbao", "Krakow",
              "Tartu", "Split", "Aarhus"]
    with Memory(store_url) as memory:
        memory.add_episodes(T, [
            {"id": f"m{i}", "at": f"20{10 + i}-03-01T10:00:00Z", "text": f"Mira moved to {city}", "speaker": "mira"}
            for i, city in enumerate(cities)
        ])
        for preset in ("default", "recent"):
            ids = [h.episode_id for h in memory.search(T, "Where does Mira live?", config=preset, limit=10)]
            assert ids[:3] == ["m13", "m12", "m11"], preset
        past = [h.episode_id for h in memory.search(T, "Where did Mira live in 2011?", config="default")]
        assert past[0] == "m1"


def test_a_named_date_lifts_the_turns_of_that_time(store_url: str, hashing: Any) -> None:
    dated = SearchConfig(date_weight=1.0)
    with Memory(store_url, embedder=hashing) as memory:
        memory.add_episodes(T, [
            {"id": f"d{day}", "at": f"2023-05-{day:02d}T18:00:00Z", "text": "Nate cooked pasta with friends",
             "speaker": "nate", "session": f"s{day}"} for day in range(1, 29, 3)
        ] + [  # weaker matches, so that relevance (min-max normalised) has its floor outside the pasta turns
            {"id": f"r{day}", "at": f"2023-05-{day:02d}T20:00:00Z", "text": "Nate went for a run in the park",
             "speaker": "nate", "session": f"r{day}"} for day in range(1, 29, 3)
        ])
        question = "What did Nate cook on 16 May, 2023?"
        # the day named and the week in which it gets mentioned
        week = {f"{kind}{day}" for kind in "dr" for day in (16, 19, 22)}
        plain = [h.episode_id for h in memory.search(T, question, config=SearchConfig(), limit=3)]
        assert not set(plain) <= week
        # Which turn of the week leads is left to relevance: identical texts make identical
        # vectors, among which an approximate index (pgvector's HNSW) may return only some.
        for config in (dated, "default"):
            top = [h.episode_id for h in memory.search(T, question, config=config, limit=3)]
            assert set(top) <= week, config
        many = memory.search_many(T, question, {"dated": dated, "plain": SearchConfig()}, limit=5)
        assert many["dated"] == memory.search(T, question, config=dated, limit=5)


def test_versions_of_one_statement_are_recognised() -> None:
    assert same_statement(word_set("Mira moved to Lyon"), word_set("Mira moved to Oslo"))
    assert not same_statement(word_set("Mira moved to Lyon"), word_set("Mira earns 90000 a year"))
    assert not same_statement(set(), set())
