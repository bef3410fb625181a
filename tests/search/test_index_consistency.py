"""Every index follows the ledger through write, correct and erasure."""

from __future__ import annotations

from typing import Any

from sgam import Memory
from sgam.search import SearchConfig

from ..conftest import Store

T = "acme"
KEYWORD = SearchConfig(vector=False)
VECTOR = SearchConfig(keyword=False)


def _ids(memory: Memory, question: str, config: SearchConfig) -> list[str]:
    return [hit.episode_id for hit in memory.search(T, question, limit=10, config=config)]


def _seed(memory: Memory) -> None:
    memory.add_episodes(T, [
        {"id": "e1", "at": "2024-01-01T10:00:00Z", "text": "The passport deadline is July 15", "speaker": "ann"},
        {"id": "e2", "at": "2024-02-01T10:00:00Z", "text": "Move the passport deadline to June 30",
         "speaker": "ann"},
        {"id": "e3", "at": "2024-02-02T10:00:00Z", "text": "I adopted a tortoise named Zebulon", "speaker": "bob"},
    ])


def test_erased_episode_is_unreachable_by_keyword_and_vector(store: Store, hashing: Any) -> None:
    with Memory(store.url, embedder=hashing) as memory:
        _seed(memory)
        assert "e3" in _ids(memory, "tortoise Zebulon", KEYWORD)
        assert _ids(memory, "tortoise named Zebulon", VECTOR)[0] == "e3"
        memory.forget_episode(T, "e3")
        assert "e3" not in _ids(memory, "tortoise Zebulon", KEYWORD)
        assert "e3" not in _ids(memory, "tortoise named Zebulon", VECTOR)
        assert "e3" not in _ids(memory, "tortoise named Zebulon", SearchConfig())
        matching = "SELECT count(*) FROM episodes WHERE search @@ to_tsquery('english', 'zebulon')"
        assert store.full_text("episodes", matching, "zebulon") == 0
        assert store.count("SELECT count(*) FROM episode_vectors") == 2


def test_erasure_seen_by_another_process_cache(store_url: str, hashing: Any) -> None:
    with Memory(store_url, embedder=hashing) as reader, Memory(store_url, embedder=hashing) as writer:
        _seed(writer)
        assert _ids(reader, "tortoise named Zebulon", VECTOR)[0] == "e3"  # fills reader's cache
        writer.forget_episode(T, "e3")
        assert "e3" not in _ids(reader, "tortoise named Zebulon", VECTOR)
        writer.add_episode(T, "e4", "2024-03-01T00:00:00Z", "Zebulon the tortoise again", speaker="bob")
        assert _ids(reader, "tortoise named Zebulon", VECTOR)[0] == "e4"


def test_tenants_never_see_each_other(store_url: str, hashing: Any) -> None:
    with Memory(store_url, embedder=hashing) as memory:
        _seed(memory)
        assert memory.search("other", "passport deadline", config=SearchConfig()) == []


def test_fact_index_follows_write_correct_and_forget(store: Store) -> None:
    with Memory(store.url) as memory:
        _seed(memory)
        memory.write(T, "ann", "passport_deadline", "2024-07-15", "2024-01-01T10:00:00Z", "e1")
        memory.write(T, "ann", "passport_deadline", "2024-06-30", "2024-02-01T10:00:00Z", "e2")
        result = memory.recall(T, "When is Ann's passport deadline?", budget=500)
        facts = [item for item in result.items if item.kind == "fact"]
        assert [(f.value, f.superseded) for f in facts] == [("2024-06-30", False), ("2024-07-15", True)]
        memory.correct(T, "ann", "passport_deadline", "2024-02-01T10:00:00Z", "2024-06-29", "e2")
        facts = [i for i in memory.recall(T, "ann passport deadline", budget=500).items if i.kind == "fact"]
        assert facts[0].value == "2024-06-29" and not facts[0].superseded
        assert any(f.value == "2024-06-30" and f.superseded for f in facts)
        memory.forget_subject(T, "ann")
        assert [i for i in memory.recall(T, "ann passport deadline", budget=500).items if i.kind == "fact"] == []
        keys = store.count("SELECT count(*) FROM (SELECT DISTINCT tenant, subject, attribute FROM operations)")
        assert store.full_text("keys", "SELECT count(*) FROM ledger_keys") == keys
        assert store.count("SELECT count(*) FROM ledger_keys WHERE subject = 'ann'") == 0


def test_forget_episode_rederives_fact_index(store_url: str) -> None:
    with Memory(store_url) as memory:
        _seed(memory)
        memory.write(T, "ann", "passport_deadline", "2024-07-15", "2024-01-01T10:00:00Z", "e1")
        memory.write(T, "ann", "passport_deadline", "2024-06-30", "2024-02-01T10:00:00Z", "e2")
        memory.forget_episode(T, "e2")
        facts = [i for i in memory.recall(T, "ann passport deadline", budget=500).items if i.kind == "fact"]
        assert [(f.value, f.superseded) for f in facts] == [("2024-07-15", False)]
        assert all(i.citation.episode_id != "e2" for i in memory.recall(T, "passport", budget=500).items)


def test_backfill_embeds_episodes_recorded_without_an_embedder(store_url: str, hashing: Any) -> None:
    with Memory(store_url) as plain:
        _seed(plain)
    with Memory(store_url, embedder=hashing) as memory:
        assert memory.search(T, "tortoise named Zebulon", config=VECTOR) == []
        assert memory.index_episodes(T, batch=2) == 3
        assert memory.index_episodes(T) == 0
        assert _ids(memory, "tortoise named Zebulon", VECTOR)[0] == "e3"


def test_filters_apply_to_both_channels(store_url: str, hashing: Any) -> None:
    with Memory(store_url, embedder=hashing) as memory:
        _seed(memory)
        memory.write(T, "ann", "passport_deadline", "2024-07-15", "2024-01-01T10:00:00Z", "e1")
        for config in (KEYWORD, VECTOR):
            assert _ids_with(memory, config, until="2024-01-15T00:00:00Z") == ["e1"]
            assert set(_ids_with(memory, config, since="2024-01-15T00:00:00Z")) <= {"e2", "e3"}
            assert set(_ids_with(memory, config, speaker="bob")) <= {"e3"}
            assert _ids_with(memory, config, subject="ann") == ["e1"]
            assert _ids_with(memory, config, memory_type="nothing") == []


def _ids_with(memory: Memory, config: SearchConfig, **filters: Any) -> list[str]:
    hits = memory.search(T, "passport deadline tortoise", limit=10, config=config, **filters)
    return [hit.episode_id for hit in hits]


def test_speaker_named_in_question_is_preferred(store_url: str) -> None:
    with Memory(store_url) as memory:
        memory.add_episodes(T, [
            {"id": "a", "at": "2024-01-01T00:00:00Z", "text": "I love painting sunsets", "speaker": "Mel"},
            {"id": "b", "at": "2024-01-01T00:00:01Z", "text": "I love painting sunsets", "speaker": "Jon"},
        ])
        plain = SearchConfig(vector=False)
        prefer = SearchConfig(vector=False, speaker_weight=0.5)
        assert _ids(memory, "What does Jon love painting?", prefer)[0] == "b"
        assert _ids(memory, "What does Mel love painting?", prefer)[0] == "a"
        assert len(_ids(memory, "What does Jon love painting?", plain)) == 2
