"""Forgetting benchmark: memories that must no longer be used — expired, consent revoked,
scoped to another purpose — how many of them reach a recall context?

    .venv/bin/python bench/forgetting.py [--people 120] [--seed 11] [--backend sqlite|postgres]
                                         [--model PATH] [--json]

Each generated person has facts of five kinds, each carrying a unique marker word:

- kept: a badge number (no deadline, consent given) — must still be recalled;
- expired episode: a message in a retention class of one hour, with the fact it sourced;
- expired write: a fact with an ``expires_at`` half an hour out;
- revoked: a favourite colour, for the third of the people who then revoke consent;
- purpose: an answer style written for the purpose ``slides``, asked without purpose and
  for the purpose ``report`` (and, as a kept fact, for ``slides``).

When every deadline has passed, each person is asked about each fact. A leak is a forbidden marker in
the context a memory hands to a model. sgam answers with ``Memory.recall``; the
baselines are plain memories without lifecycle that were given the same texts: BM25 over
every text, and (with ``--model``, a model2vec folder; default the shared test model when
present) cosine over their embeddings. Both build a context of their best texts within
the same token budget.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from _stores import temporary_url

from sgam import Memory, Model2VecEmbedder

TENANT = "forgetting"
BUDGET = 400
SHARED_MODEL = Path(__file__).resolve().parents[2] / "shared" / "models" / "minilm-l6-static-256"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def marker(rng: random.Random) -> str:
    return "zq" + "".join(rng.choice("bcdfghjkmnpqrstvwxz") for _ in range(8))


def corpus(people: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What each memory is given (episodes, writes, consent), and the probes to ask."""
    events: list[dict[str, Any]] = []
    probes: list[dict[str, Any]] = []
    for p in range(people):
        who = f"person{p}"
        at = START + timedelta(minutes=p)
        badge, locker, spot, colour, style = (marker(rng) for _ in range(5))
        events += [
            {"episode": f"{who}-badge", "at": at, "text": f"{who}: my badge number is {badge}."},
            {"write": (who, "badge_number", badge, f"{who}-badge")},
            {"episode": f"{who}-chat", "at": at, "text": f"{who}: my locker code is {locker}.", "retention": "chat"},
            {"write": (who, "locker_code", locker, f"{who}-chat")},
            {"episode": f"{who}-setting", "at": at, "text": f"{who} changed a parking setting."},
            {"write": (who, "parking_spot", spot, f"{who}-setting"), "expires_at": at + timedelta(minutes=30)},
            {"episode": f"{who}-colour", "at": at, "text": f"{who}: my favourite colour is {colour}."},
            {"write": (who, "favourite_colour", colour, f"{who}-colour")},
            {"episode": f"{who}-slides", "at": at, "text": f"{who} gave instructions for the slides."},
            {"write": (who, "answer_style", style, f"{who}-slides"), "purpose": "slides"},
        ]
        revoked = p % 3 == 0
        if revoked:
            events.append({"revoke": who})
        badge_probe = {"kind": "revoked" if revoked else "kept", "question": f"What is the badge number of {who}?",
                       "marker": badge}
        probes += [
            badge_probe,
            {"kind": "expired_episode", "question": f"What is the locker code of {who}?", "marker": locker},
            {"kind": "expired_write", "question": f"Which parking spot does {who} have?", "marker": spot},
            {"kind": "purpose", "question": f"What answer style does {who} want?", "marker": style},
            {"kind": "purpose", "question": f"What answer style does {who} want?", "marker": style,
             "purpose": "report"},
        ]
        if not revoked:  # the positive control of purpose: asked for its own purpose, it is used
            probes.append({"kind": "kept", "question": f"What answer style does {who} want?", "marker": style,
                           "purpose": "slides"})
        if revoked:
            probes.append({"kind": "revoked", "question": f"What is the favourite colour of {who}?",
                           "marker": colour})
    return events, probes


def fact_text(subject: str, attribute: str, value: str) -> str:
    return f"{subject} {attribute.replace('_', ' ')} {value}"


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


class PlainMemory:
    """A memory without lifecycle: every text it was given, ranked by BM25 or cosine."""

    def __init__(self, rank: str, embed: Callable[[list[str]], Any] | None = None) -> None:
        self.rank = rank
        self.embed = embed
        self.texts: list[str] = []

    def add(self, text: str) -> None:
        self.texts.append(text)

    def context(self, question: str) -> str:
        order = self._bm25(question) if self.rank == "bm25" else self._cosine(question)
        kept: list[str] = []
        used = 0
        for index in order:
            cost = len(self.texts[index]) // 4 + 1
            if used + cost > BUDGET:
                break
            kept.append(self.texts[index])
            used += cost
        return "\n".join(kept)

    def _bm25(self, question: str, k1: float = 1.2, b: float = 0.75) -> list[int]:
        docs = [tokens(text) for text in self.texts]
        average = sum(map(len, docs)) / max(1, len(docs))
        frequency = Counter(term for doc in docs for term in set(doc))
        scores = []
        for index, doc in enumerate(docs):
            counts = Counter(doc)
            score = 0.0
            for term in set(tokens(question)):
                if term in counts:
                    idf = math.log(1 + (len(docs) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                    tf = counts[term]
                    score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(doc) / average))
            scores.append((score, index))
        return [index for score, index in sorted(scores, key=lambda s: (-s[0], s[1])) if score > 0]

    def _cosine(self, question: str) -> list[int]:
        assert self.embed is not None
        if not hasattr(self, "_matrix") or len(self._matrix) != len(self.texts):
            self._matrix = _unit(np.asarray(self.embed(self.texts), dtype=np.float32))
        query = _unit(np.asarray(self.embed([question]), dtype=np.float32))[0]
        return [int(i) for i in np.argsort(-(self._matrix @ query))]


def _unit(matrix: Any) -> Any:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def feed(memory: Memory, plain: list[PlainMemory], events: list[dict[str, Any]]) -> None:
    memory.retention(TENANT, "chat", "PT1H")
    for event in events:
        if "episode" in event:
            memory.add_episode(TENANT, event["episode"], iso(event["at"]), event["text"],
                               retention=event.get("retention", "default"))
            texts = [event["text"]]
        elif "write" in event:
            subject, attribute, value, source = event["write"]
            expires = event.get("expires_at")
            memory.write(TENANT, subject, attribute, value, iso(START), source, purpose=event.get("purpose"),
                         expires_at=None if expires is None else iso(expires))
            texts = [fact_text(subject, attribute, value)]
        else:
            memory.consent(TENANT, event["revoke"], False)
            texts = []
        for baseline in plain:
            for text in texts:
                baseline.add(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=120)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--model", type=Path, default=SHARED_MODEL if SHARED_MODEL.is_dir() else None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    events, probes = corpus(args.people, random.Random(args.seed))
    embedder = Model2VecEmbedder(str(args.model)) if args.model is not None else None
    plain = [PlainMemory("bm25")]
    if embedder is not None:
        plain.append(PlainMemory("vector", lambda texts: embedder.embed(texts)))
    clock = {"now": START}
    with (temporary_url(args.backend, "forgetting") as url,
          Memory(url, clock=lambda: clock["now"], embedder=embedder) as memory):
        feed(memory, plain, events)
        clock["now"] = START + timedelta(minutes=args.people, hours=2)  # past every deadline
        names = ["sgam"] + [f"baseline_{b.rank}" for b in plain]
        tally: dict[str, Counter[str]] = {name: Counter() for name in names}
        asked: Counter[str] = Counter()
        for probe in probes:
            asked[probe["kind"]] += 1
            contexts = [memory.recall(TENANT, probe["question"], budget=BUDGET, purpose=probe.get("purpose")).text]
            contexts += [baseline.context(probe["question"]) for baseline in plain]
            for name, context in zip(names, contexts, strict=True):
                if probe["marker"] in context:
                    tally[name][probe["kind"]] += 1
    forbidden = sum(count for kind, count in asked.items() if kind != "kept")
    result: dict[str, Any] = {"people": args.people, "backend": args.backend, "probes": dict(asked),
                              "forbidden_probes": forbidden}
    for name in names:
        leaks = sum(count for kind, count in tally[name].items() if kind != "kept")
        result[name] = {"leaks": leaks, "leak_rate": round(leaks / forbidden, 4),
                        "leaks_by_kind": {k: tally[name][k] for k in asked if k != "kept"},
                        "kept_recalled": round(tally[name]["kept"] / asked["kept"], 4)}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{forbidden} probes of memories that must not be used ({args.people} people, {args.backend})")
    for name in names:
        r = result[name]
        print(f"{name:17s} leaks {r['leaks']:4d} ({r['leak_rate']:.1%})  by kind {r['leaks_by_kind']}  "
              f"kept facts recalled {r['kept_recalled']:.1%}")


if __name__ == "__main__":
    main()
