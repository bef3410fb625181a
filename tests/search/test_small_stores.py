"""Search on the first few episodes a user records: BM25 statistics, score normalisation
and the context signals (adjacent turns, session coverage) are at their least reliable
there, and none of them may put an episode that shares no word with the question above
one that holds all of it; without an embedder such an episode is no evidence at all."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgam import Memory
from sgam.search import SearchConfig

from ..conftest import Store

T = "acme"
PASSPORT = [
    ("e1", "The passport deadline is July 15."),
    ("e2", "Lunch was nice."),
    ("e3", "Reminder: the passport deadline moved to June 30, renew the passport soon."),
    ("e4", "The weather is sunny."),
]
CONFIGS = ["default", "keyword", "hybrid", "recent"]
LOUD = SearchConfig(neighbour_weight=5.0, session_weight=5.0, session_doc_weight=5.0, recency_weight=2.0)
"""Every context signal turned up: they lift matching turns, they must not make new ones."""


def _passport(memory: Memory, session: str | None) -> None:
    memory.add_episodes(T, [{"id": eid, "at": f"2026-06-0{n}T09:00:00Z", "text": text, "session": session}
                            for n, (eid, text) in enumerate(PASSPORT, start=1)])


@pytest.mark.parametrize("config", [*CONFIGS, LOUD])
@pytest.mark.parametrize("session", [None, "s1"])
def test_the_correction_is_found_and_the_noise_is_not(
    store: Store, config: str | SearchConfig, session: str | None,
) -> None:
    with Memory(store.url) as memory:
        _passport(memory, session)
        hits = memory.search(T, "passport deadline", config=config)
        assert sorted(hit.episode_id for hit in hits) == ["e1", "e3"]
        assert all(hit.score > 0 for hit in hits)


class NoiseEmbedder:
    """Scripted to be wrong: the question and the lunch note point one way, the rest another."""

    name = "test:noise"
    dimension = 2

    def embed(self, texts: list[str]) -> Any:
        import numpy as np

        return np.array([[1.0, 0.0] if ("lunch" in t.lower() or t == "passport deadline") else [0.0, 1.0]
                         for t in texts], dtype=np.float32)


@pytest.mark.parametrize("config", [*CONFIGS, LOUD])
@pytest.mark.parametrize("session", [None, "s1"])
def test_with_an_embedder_the_noise_ranks_below_the_answers(
    store: Store, config: str | SearchConfig, session: str | None,
) -> None:
    with Memory(store.url, embedder=NoiseEmbedder()) as memory:
        _passport(memory, session)
        ids = [hit.episode_id for hit in memory.search(T, "passport deadline", config=config)]
        assert sorted(ids[:2]) == ["e1", "e3"]
        assert set(ids) <= {"e1", "e2", "e3", "e4"}


def test_a_weak_match_keeps_a_score_above_zero(store: Store) -> None:
    with Memory(store.url) as memory:
        _passport(memory, None)
        scores = {hit.episode_id: hit.score for hit in memory.search(T, "passport deadline", config="keyword")}
        assert scores["e1"] == 1.0 and 0.5 < scores["e3"] < 1.0


def test_the_index_says_which_episodes_hold_the_words(store: Store) -> None:
    with Memory(store.url) as memory:
        _passport(memory, None)
        memory.add_episode("globex", "g1", "2026-06-01T09:00:00Z", "Passport deadlines everywhere.")
        index = memory._search.index
        keys = {hit.episode_id: hit.key for hit in memory.search(T, "passport lunch weather", limit=4)}
        other = memory.search("globex", "passport")[0].key
        asked = [keys["e1"], keys["e2"], keys["e4"], other]
        with memory.backend.read(T) as reader:
            holding = index.episodes_holding(reader, ["passports", "sunny"], asked)
            assert holding == {keys["e1"]: False, keys["e4"]: False}
            assert index.episodes_holding(reader, ["passport", "deadlines"], asked) == {keys["e1"]: True}
            assert index.episodes_holding(reader, ["lunch"], asked) == {keys["e2"]: True}
            assert index.episodes_holding(reader, ["passport"], []) == {}
            assert index.episodes_holding(reader, [], asked) == {}


# Words whose forms share a stem under FTS5's porter, PostgreSQL's english and sgam's light
# stemmer alike, and no stem with another word: "shares a word" is then the same for all.
WORDS = {
    "passport": ("passport", "passports"), "deadline": ("deadline", "deadlines"), "lunch": ("lunch",),
    "weather": ("weather",), "garden": ("garden", "gardens"), "piano": ("piano",), "river": ("river", "rivers"),
    "ticket": ("ticket", "tickets"), "museum": ("museum",), "doctor": ("doctor", "doctors"),
}
FILLER = ("the", "is", "was", "about", "and")
_tenants = itertools.count()


@dataclass(frozen=True)
class Episode:
    words: tuple[str, ...]  # the lemmas it holds
    text: str
    session: str | None


@st.composite
def episodes(draw: st.DrawFn) -> Episode:
    lemmas = draw(st.lists(st.sampled_from(sorted(WORDS)), min_size=1, max_size=5))
    parts = [draw(st.sampled_from(WORDS[lemma])) for lemma in lemmas]
    parts += draw(st.lists(st.sampled_from(FILLER), max_size=3))
    order = draw(st.permutations(parts))
    return Episode(tuple(lemmas), " ".join(order).capitalize() + ".", draw(st.sampled_from([None, "s1", "s2"])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stored=st.lists(episodes(), min_size=1, max_size=12),
       question=st.lists(st.sampled_from(sorted(WORDS)), min_size=1, max_size=3, unique=True),
       config=st.sampled_from(CONFIGS), embedded=st.booleans())
def test_what_shares_no_word_never_outranks_what_holds_every_word(
    store: Store, hashing: Any, stored: list[Episode], question: list[str], config: str, embedded: bool,
) -> None:
    tenant = f"small{next(_tenants)}"
    with Memory(store.url, embedder=hashing if embedded else None) as memory:
        memory.add_episodes(tenant, [{"id": f"e{i}", "at": f"2026-06-01T09:{i:02d}:00Z", "text": episode.text,
                                      "session": episode.session} for i, episode in enumerate(stored)])
        hits = memory.search(tenant, " ".join(question) + "?", config=config, limit=20)
        sharing = {f"e{i}" for i, e in enumerate(stored) if set(e.words) & set(question)}
        holding = {f"e{i}" for i, e in enumerate(stored) if set(question) <= set(e.words)}
        ids = [hit.episode_id for hit in hits]
        if not embedded:
            assert set(ids) == sharing  # every match, and nothing else
        else:
            assert sharing <= set(ids)
        for place, eid in enumerate(ids):
            if eid not in sharing:
                assert holding <= set(ids[:place]), (ids, holding)
        assert all(hit.score > 0 for hit in hits if hit.episode_id in sharing)


def test_recall_quotes_the_correction_and_not_the_noise(store: Store) -> None:
    with Memory(store.url) as memory:
        _passport(memory, None)
        text = memory.recall(T, "When is the passport deadline?").text
        assert "June 30" in text and "July 15" in text
        assert "Lunch" not in text and "weather" not in text
