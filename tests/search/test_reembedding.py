"""Re-embedding without re-extraction, on both backends: a new embedder's vectors are
built beside the old ones, resumably; search uses the old ones until the new ones are
complete and then the new ones, as real searches with two real embedders show; the old
vectors leave nothing behind; writers during the build and after the switch store the
vectors search will use; bad input changes nothing."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from sgam import Memory, StoreError, ValidationError
from sgam._core.model import IndexStatus
from sgam.cli import app
from sgam.search import Model2VecEmbedder, embed_checked, load_embedder
from sgam.search.embedders import Embedder

from ..conftest import HashingEmbedder, ManualClock, Store

T = "acme"
TOPICS = ["a kettle of green tea", "the old stone bridge over the river", "renewing a passport before the deadline",
          "moving house to Lisbon", "learning the guitar", "baking sourdough bread", "training for a marathon",
          "filing the tax return", "a visit to the dentist", "planning a birthday party", "repairing a bicycle",
          "a trip to the mountains", "reading a detective novel", "planting tomatoes", "adopting a kitten"]
QUESTIONS = ["where is my passport", "music practice", "running shoes", "the bakery", "holiday plans",
             "a pet at home", "money and forms", "fixing things", "something to drink", "the garden",
             "paperwork for the government", "a celebration", "a broken wheel", "the oven", "cake and candles",
             "a small animal"]
DEPTH = 5


@pytest.fixture(scope="module")
def old() -> Embedder:
    return load_embedder("wordllama")


@pytest.fixture(scope="module")
def new_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second real Model2Vec model, built from what the ``embeddings`` extra installs:
    wordllama's tokenizer and its token vectors under a fixed random projection to 64
    dimensions, so it ranks the same texts differently from wordllama itself."""
    import wordllama  # type: ignore[import-untyped]
    from model2vec import StaticModel
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    package = Path(wordllama.__file__).parent
    vectors = load_file(str(package / "weights" / "l2_supercat_256.safetensors"))["embedding.weight"]
    projected = vectors @ np.random.default_rng(1).standard_normal((vectors.shape[1], 64)).astype(np.float32)
    tokenizer = Tokenizer.from_file(str(package / "tokenizers" / "l2_supercat_tokenizer_config.json"))
    folder = tmp_path_factory.mktemp("models") / "projected-64"
    StaticModel(vectors=np.ascontiguousarray(projected, dtype=np.float32), tokenizer=tokenizer,
                normalize=True).save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def new_spec(new_folder: Path) -> str:
    return f"model2vec:{new_folder}"


@pytest.fixture(scope="module")
def new(new_folder: Path) -> Embedder:
    return Model2VecEmbedder(new_folder)


def _texts() -> list[str]:
    return [f"{TOPICS[i % len(TOPICS)]} with {TOPICS[(i * 7 + 3) % len(TOPICS)]}, note {i}" for i in range(45)]


def _seed(memory: Memory) -> None:
    memory.add_episodes(T, [{"id": f"e{i}", "at": "2024-01-01T00:00:00Z", "text": text, "speaker": "ann"}
                            for i, text in enumerate(_texts())])
    memory.write(T, "ann", "city", "Lisbon", "2024-01-01T00:00:00Z", "e3")
    memory.documents.create(T, "/memories/ann.md", "Ann drinks green tea\nshe runs marathons\n")


def _top(embedder: Embedder, question: str) -> tuple[list[str], float]:
    """The episodes ``embedder`` ranks first for ``question``, and the gap in cosine
    between the last of them and the next (an ordering stored half-precision keeps)."""
    vectors = embed_checked(embedder, [f"ann: {text}" for text in _texts()])
    scores = vectors @ embed_checked(embedder, [question])[0]
    order = np.argsort(-scores, kind="stable")
    gaps = -np.diff(scores[order][: DEPTH + 1])
    return [f"e{i}" for i in order[:DEPTH]], float(gaps.min())


@pytest.fixture(scope="module")
def telling(old: Embedder, new: Embedder) -> list[tuple[str, list[str], list[str]]]:
    """Questions whose top episodes differ between the two embedders, each ranking clear."""
    found = []
    for question in QUESTIONS:
        (by_old, gap_old), (by_new, gap_new) = _top(old, question), _top(new, question)
        if by_old != by_new and min(gap_old, gap_new) > 0.002:
            found.append((question, by_old, by_new))
    assert len(found) >= 3, found
    return found


def _searched(memory: Memory, question: str) -> list[str]:
    return [hit.episode_id for hit in memory.search(T, question, config="vector", limit=DEPTH)]


class Interrupt(Exception):
    """What a Ctrl-C is to the build: it stops between two batches."""


def _stop_after(batches: int) -> Any:
    seen: list[IndexStatus] = []

    def progress(status: IndexStatus) -> None:
        seen.append(status)
        if len(seen) >= batches:
            raise Interrupt

    return progress


class Counting:
    """An embedder that counts the texts it embeds (what a build redid would show)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.texts = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: Sequence[str]) -> Any:
        self.texts += len(texts)
        return self.inner.embed(texts)


@pytest.fixture
def seeded(store: Store, clock: ManualClock, old: Embedder) -> Iterator[Memory]:
    with Memory(store.url, clock=clock, embedder=old) as memory:
        _seed(memory)
        yield memory


def _vectors_of(store: Store, model: str) -> int:
    return sum(store.count(f"SELECT count(*) FROM {table} WHERE model = '{model}'")
               for table in ("episode_vectors", "assertion_vectors", "document_vectors"))


def test_search_uses_the_old_vectors_until_the_new_are_complete_then_the_new(
    seeded: Memory, store: Store, old: Embedder, new: Embedder, telling: list[tuple[str, list[str], list[str]]],
    new_spec: str,
) -> None:
    for question, by_old, _ in telling:
        assert _searched(seeded, question) == by_old
    with pytest.raises(Interrupt):
        seeded.reembed(T, new_spec, batch=10, progress=_stop_after(2))
    half = seeded.index_status(T)
    assert (half.searching, half.recorded, half.building) == (old.name, False, new.name)
    assert half.episodes_embedded == 20 and half.episodes == 45 and not half.complete
    with Memory(store.url, embedder=old) as other:  # a process of its own, configured as before
        for question, by_old, _ in telling:
            assert _searched(seeded, question) == by_old
            assert _searched(other, question) == by_old
        done = seeded.reembed(T, new_spec, batch=10)
        assert (done.searching, done.recorded, done.building, done.complete) == (new.name, True, None, True)
        assert (done.episodes, done.facts, done.chunks) == (45, 1, 1)
        for question, _, by_new in telling:
            assert _searched(seeded, question) == by_new
            assert _searched(other, question) == by_new  # it loads the new embedder by its recorded spec
        assert other.index_status(T).searching == new.name
    assert _vectors_of(store, old.name) == 0


def test_an_interrupted_build_resumes_without_redoing_finished_batches(seeded: Memory, new: Embedder) -> None:
    counting = Counting(new)
    with pytest.raises(Interrupt):
        seeded.reembed(T, counting, batch=10, progress=_stop_after(3))
    assert counting.texts == 30 and seeded.index_status(T).episodes_embedded == 30
    counting.texts = 0
    seeded.reembed(T, counting, batch=10)
    assert counting.texts == 45 - 30 + 1 + 1  # the episodes left, the fact, the document chunk
    counting.texts = 0
    again = seeded.reembed(T, counting, batch=10)  # complete already: nothing is embedded again
    assert counting.texts == 0 and again.searching == new.name


def test_nothing_of_the_old_vectors_is_left_after_the_switch(
    seeded: Memory, store: Store, old: Embedder, new: Embedder, new_spec: str,
) -> None:
    old_bytes = embed_checked(old, [f"ann: {_texts()[5]}"])[0].astype(np.float16).tobytes()
    seeded.search(T, "tea", config="vector")  # the process now holds a copy of the old vectors
    assert _vectors_of(store, old.name) == 45 + 1 + 1
    seeded.reembed(T, new_spec)
    assert _vectors_of(store, old.name) == 0 and _vectors_of(store, new.name) == 45 + 1 + 1
    assert not seeded.residue(T, old.name).found
    assert [(entry.action, entry.rows) for entry in seeded.audit(T)][:1] == [("reembed", 45 + 1 + 1)]
    index: Any = seeded.ledger.search.index
    held = index._caches if store.backend == "sqlite" else index._vectors._copies
    assert all(key[1] != old.name for key in held)
    if store.backend == "sqlite":
        seeded.close()
        for path in (Path(store.admin), Path(store.admin + "-wal")):
            assert not path.exists() or old_bytes not in path.read_bytes(), path
    else:
        assert store.count(f"SELECT count(*) FROM episode_vector_heads WHERE model = '{old.name}'") == 0
        assert store.count(f"SELECT count(*) FROM episode_vector_counts WHERE model = '{old.name}'") == 0


def test_episodes_written_during_the_build_get_both_vectors(
    seeded: Memory, store: Store, old: Embedder, new: Embedder, new_spec: str,
) -> None:
    with pytest.raises(Interrupt):
        seeded.reembed(T, new_spec, batch=10, progress=_stop_after(1))
    with Memory(store.url, embedder=old) as writer:
        writer.add_episode(T, "during", "2024-02-01T00:00:00Z", "a kettle of black tea")
    for model in (old.name, new.name):
        assert store.count("SELECT count(*) FROM episode_vectors v JOIN episodes e ON e.seq = v.seq "
                           f"WHERE e.episode_id = 'during' AND v.model = '{model}'",
                           "SELECT count(*) FROM episode_vectors WHERE episode_id = 'during' "
                           f"AND model = '{model}'") == 1
    assert seeded.reembed(T, new_spec, batch=10).episodes == 46


def test_a_writer_that_saw_the_old_state_writes_the_new_vectors(
    store: Store, clock: ManualClock, old: Embedder, new: Embedder, new_spec: str,
) -> None:
    with Memory(store.url, clock=clock, embedder=old) as stale, Memory(store.url, clock=clock) as operator:
        _seed(stale)  # ``stale`` has seen the tenant with its own embedder
        operator.reembed(T, new_spec)
        stale.add_episode(T, "after", "2024-02-01T00:00:00Z", "a kettle of black tea")
        stale.write(T, "ann", "tea", "black", "2024-02-01T00:00:00Z", "after")
        assert _vectors_of(store, old.name) == 0
        status = operator.index_status(T)
        assert (status.episodes_embedded, status.facts_embedded) == (46, 2) and status.complete
        assert [hit.episode_id for hit in stale.search(T, "black tea kettle", config="vector", limit=1)] == ["after"]


def test_a_process_that_was_not_given_the_embedder_says_so(store: Store, old: Embedder) -> None:
    hashing = HashingEmbedder()
    with Memory(store.url, embedder=old) as memory:
        _seed(memory)
        memory.reembed(T, hashing)  # an object: no spec recorded
        assert memory.search(T, "tea kettle", config="vector")
    with Memory(store.url, embedder=old) as other, pytest.raises(StoreError, match="test:hashing") as caught:
        other.search(T, "tea kettle", config="vector")
    assert caught.value.field == "embedder"


@pytest.mark.parametrize("given", ["nope:thing", "model2vec:/nowhere", "", 42, None])
def test_a_bad_embedder_is_refused_and_nothing_changes(seeded: Memory, store: Store, old: Embedder,
                                                        given: Any, new_spec: str) -> None:
    before = seeded.index_status(T)
    with pytest.raises(ValidationError) as caught:
        seeded.reembed(T, given)
    assert caught.value.field == "embedder"
    assert seeded.index_status(T) == before
    assert store.count("SELECT count(*) FROM search_embedders") == 0
    assert _vectors_of(store, old.name) == 47
    with pytest.raises(ValidationError, match="batch"):
        seeded.reembed(T, new_spec, batch=0)
    assert store.count("SELECT count(*) FROM search_embedders") == 0


def test_the_cli_builds_shows_and_switches(seeded: Memory, store: Store, new: Embedder, new_spec: str) -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["index", "-t", T, "--db", store.url, "--embedder", new_spec, "--batch", "20"])
    assert out.exit_code == 0, out.output
    assert new.name in out.output and "45 of 45 embedded" in out.output
    out = runner.invoke(app, ["index", "-t", T, "--db", store.url, "--status", "--json"])
    assert out.exit_code == 0, out.output
    assert f'"searching": "{new.name}"' in out.output and '"recorded": true' in out.output
    out = runner.invoke(app, ["index", "-t", T, "--db", store.url, "--embedder", "nope:x", "--json"])
    assert out.exit_code == 3 and '"field": "embedder"' in out.output



def test_http_builds_as_admin_and_shows_to_readers(store: Store, old: Embedder, new: Embedder, new_spec: str) -> None:
    from ..server.conftest import serve

    with Memory(store.url, embedder=old) as seeding:
        _seed(seeding)
    with Memory(store.url) as memory, serve(memory) as running:  # the server has no embedder of its own
        with running.client(T, "write") as c:
            refused = c.post("/v1/index", json={"embedder": new_spec})
            assert refused.status_code == 403
        with running.client(T, "admin") as c:
            bad = c.post("/v1/index", json={"embedder": "nope:x"})
            assert bad.status_code == 422 and bad.json()["field"] == "embedder"
            built = c.post("/v1/index", json={"embedder": new_spec, "batch": 20})
            assert built.status_code == 200, built.text
            assert (built.json()["searching"], built.json()["recorded"]) == (new.name, True)
        with running.client(T, "read") as c:
            shown = c.get("/v1/index").json()
            assert (shown["searching"], shown["episodes_embedded"], shown["building"]) == (new.name, 45, None)
            hits = c.post("/v1/search", json={"question": "green tea kettle", "config": "vector", "limit": 3})
            assert hits.status_code == 200 and len(hits.json()) == 3
    assert _vectors_of(store, old.name) == 0


def test_status_of_a_tenant_searched_by_keyword_only_counts_its_rows(store: Store) -> None:
    with Memory(store.url) as memory:
        memory.add_episodes(T, [{"id": f"e{i}", "at": "2024-01-01T00:00:00Z", "text": text}
                                for i, text in enumerate(_texts()[:5])])
        status = memory.index_status(T)
    assert (status.searching, status.recorded, status.building) == (None, False, None)
    assert (status.episodes, status.episodes_embedded, status.complete) == (5, 0, False)
