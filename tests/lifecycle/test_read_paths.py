"""Consent, purpose, expiry and lineage reach every read path, not only the ledger:
query, search, recall, episodes, extraction records and held candidates."""

from __future__ import annotations

import pytest

from sgam import Memory, NotFoundError

from ..conftest import HashingEmbedder, ManualClock, Store

T = "acme"


def _seed(memory: Memory) -> None:
    memory.add_episodes(T, [
        {"id": "m1", "at": "2026-06-01T09:00:00Z", "speaker": "mira", "text": "I moved to Oslo last week."},
        {"id": "o1", "at": "2026-06-01T09:05:00Z", "speaker": "ola", "text": "Ola moved to Bergen in May."},
        {"id": "x1", "at": "2026-06-01T09:10:00Z", "text": "The office moved to a new building."},
    ])
    memory.write(T, "mira", "home_city", "Oslo", "2026-06-01T09:00:00Z", "m1")
    memory.write(T, "ola", "home_city", "Bergen", "2026-06-01T09:05:00Z", "o1")


def test_revoked_subject_is_absent_from_every_read_path(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock, embedder=HashingEmbedder()) as memory:
        clock.set("2026-06-02T00:00:00+00:00")
        _seed(memory)
        memory.consent(T, "mira", False)
        assert memory.get(T, "mira", "home_city") is None
        assert [a.subject for a in memory.query(T)] == ["ola"]
        hits = memory.search(T, "who moved to Oslo", limit=10)
        assert "m1" not in {h.episode_id for h in hits} and hits
        recalled = memory.recall(T, "Where does mira live? home city", budget=2000)
        assert "Oslo" not in recalled.text and "mira" not in recalled.text.lower()
        memory.consent(T, "mira", True)
        assert "m1" in {h.episode_id for h in memory.search(T, "who moved to Oslo", limit=10)}
        assert "Oslo" in memory.recall(T, "Where does mira live? home city", budget=2000).text


def test_purpose_reads_in_query_and_recall(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        clock.set("2026-06-02T00:00:00+00:00")
        _seed(memory)
        memory.write(T, "mira", "answer_style", "detailed", "2026-06-01T00:00:00Z", "m1")
        memory.write(T, "mira", "answer_style", "short", "2026-06-01T00:00:00Z", "m1", purpose="slides")
        general = memory.query(T, attribute="answer_style")
        assert [(a.value, a.purpose) for a in general] == [("detailed", None)]
        scoped = memory.query(T, attribute="answer_style", purpose="slides")
        assert [(a.value, a.purpose) for a in scoped] == [("short", "slides")]
        other = memory.query(T, subject="mira", purpose="report")
        assert sorted((a.attribute, a.value) for a in other) == [("answer_style", "detailed"), ("home_city", "Oslo")]
        assert [a.value for a in memory.query(T, subject="mira", purpose="slides", attribute="answer_style")] == [
            "short"]
        plain = memory.recall(T, "mira answer style", budget=2000)
        assert "detailed" in plain.text and "short" not in plain.text
        slides = memory.recall(T, "mira answer style", budget=2000, purpose="slides")
        assert "short" in slides.text and "detailed" not in slides.text
        memory.consent(T, "mira", False, purpose="slides")
        assert "short" not in memory.recall(T, "mira answer style", budget=2000, purpose="slides").text
        assert memory.query(T, subject="mira", purpose="slides") == []
        assert [a.value for a in memory.query(T, subject="mira", attribute="answer_style")] == ["detailed"]


def test_an_episode_and_its_derivatives_count_as_one_source(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        clock.set("2026-06-02T00:00:00+00:00")
        memory.add_episode(T, "raw", "2026-06-01T00:00:00Z", "Ann says the launch date is March 3.")
        memory.add_episode(T, "sum", "2026-06-01T01:00:00Z", "Summary: the launch date is March 3.",
                           derived_from=["raw"])
        memory.add_episode(T, "note", "2026-06-01T02:00:00Z", "Note: launch date March 3 confirmed.",
                           derived_from=["sum"])
        memory.add_episode(T, "ind", "2026-06-01T03:00:00Z", "Bob independently heard the launch date is March 3.")
        hits = memory.search(T, "launch date March 3", limit=10)
        ids = [h.episode_id for h in hits]
        assert "ind" in ids
        assert len({"raw", "sum", "note"} & set(ids)) == 1
        assert memory.episode(T, "note") is not None
        assert memory.episode(T, "note").derived_from == ("sum",)  # type: ignore[union-attr]
        assert [e.id for e in memory.derived_episodes(T, "raw")] == ["sum"]
        assert [e.id for e in memory.derived_episodes(T, "sum")] == ["note"]
        assert memory.derived_episodes(T, "note") == []
        with pytest.raises(NotFoundError) as missing:
            memory.derived_episodes(T, "nope")
        assert missing.value.field == "id" and missing.value.value == "nope"


def test_derived_episodes_hide_what_cannot_be_read(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        clock.set("2026-06-02T00:00:00+00:00")
        memory.retention(T, "brief", "PT1H")
        memory.add_episode(T, "raw", "2026-06-02T00:00:00Z", "The team met on Monday.")
        memory.add_episode(T, "short", "2026-06-02T00:00:00Z", "Met Monday.", derived_from=["raw"],
                           retention="brief")
        memory.add_episode(T, "about", "2026-06-02T00:00:00Z", "Omar chaired the meeting.", speaker="omar",
                           derived_from=["raw"])
        assert [e.id for e in memory.derived_episodes(T, "raw")] == ["about", "short"]
        memory.consent(T, "omar", False)
        assert [e.id for e in memory.derived_episodes(T, "raw")] == ["short"]
        clock.advance(2 * 3600)
        assert memory.derived_episodes(T, "raw") == []
        memory.forget_episode(T, "raw")
        with pytest.raises(NotFoundError):
            memory.derived_episodes(T, "raw")


def test_expired_text_leaves_search_and_episode_lists(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock, embedder=HashingEmbedder()) as memory:
        clock.set("2026-06-01T00:00:00+00:00")
        memory.retention(T, "transcripts", "PT1H", on_expiry="keep_facts")
        memory.add_episode(T, "t1", "2026-06-01T00:00:00Z", "Zyxwv the quokka prefers tea.", retention="transcripts")
        memory.write(T, "quokka", "drink", "tea", "2026-06-01T00:00:00Z", "t1")
        assert [h.episode_id for h in memory.search(T, "zyxwv quokka tea")] == ["t1"]
        clock.advance(3600)
        assert memory.search(T, "zyxwv quokka tea") == []
        assert memory.episodes(T) == [] and memory.episode(T, "t1") is None
        assert memory.get(T, "quokka", "drink").source == "t1"  # type: ignore[union-attr]
        assert store.count("SELECT count(*) FROM episodes WHERE text LIKE '%quokka%'") == 0


def test_revoked_consent_hides_episodes_about_the_subject(store: Store, clock: ManualClock) -> None:
    with Memory(store.url, clock=clock) as memory:
        clock.set("2026-06-02T00:00:00+00:00")
        _seed(memory)
        memory.add_episode(T, "n1", "2026-06-01T09:20:00Z", "Lunch with Mira on Friday.")
        everything = ["m1", "o1", "x1", "n1"]
        assert [e.id for e in memory.episodes(T)] == everything
        memory.consent(T, "mira", False, purpose="slides")
        assert [e.id for e in memory.episodes(T)] == everything
        assert memory.episode(T, "m1") is not None
        assert [e.id for e in memory.episodes(T, purpose="slides")] == ["o1", "x1"]
        assert memory.episode(T, "m1", purpose="slides") is None
        memory.consent(T, "mira", False)
        # m1 sourced a write about mira and is spoken by her; n1 names her as a word
        assert [e.id for e in memory.episodes(T)] == ["o1", "x1"]
        assert [e.id for e in memory.episodes(T, purpose="report")] == ["o1", "x1"]
        assert memory.episode(T, "m1") is None and memory.episode(T, "n1") is None
        assert memory.episode(T, "o1") is not None
        assert memory.ledger.episode(T, "m1") is not None  # revoking erases nothing
        memory.consent(T, "mira", True)
        assert [e.id for e in memory.episodes(T)] == everything
        assert memory.episode(T, "m1") is not None
