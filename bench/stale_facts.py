"""Stale-fact benchmark: values change and get corrected over time; who answers with a
value that no longer holds?

    .venv/bin/python bench/stale_facts.py [--people 200] [--seed 7] [--json]

Each generated person has a home city and an employer that change 1-4 times; a share of
the changes is followed by a correction ("sorry, I meant ..."), recorded with
``Memory.correct``. Every change is an episode (the text memory) and a ledger write.
Questions ask for the current value.

- baseline: a plain text memory: the top-ranked episode by BM25 (the ``keyword`` preset),
  answered with the first known value its text names;
- sgam: ``Memory.recall``, answered with its first CURRENT fact.

An answer is stale when it names a value the key held before but not now.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sgam import Memory

CITIES = ["Paris", "Lyon", "Berlin", "Madrid", "Lisbon", "Oslo", "Vienna", "Prague", "Dublin", "Rome",
          "Milan", "Zurich", "Warsaw", "Athens", "Helsinki", "Porto"]
EMPLOYERS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Wonka", "Stark", "Wayne",
             "Cyberdyne", "Tyrell", "Soylent"]
ATTRIBUTES = {"home_city": ("home city", CITIES), "employer": ("employer", EMPLOYERS)}
TENANT = "stale"
CHATTER = ["the weather was lovely today", "I finished a good book", "lunch was pasta again",
           "my team shipped the release", "the train was late this morning"]


def trace(people: int, rng: random.Random) -> tuple[list[dict[str, Any]], list[tuple[str, ...]], dict[Any, Any]]:
    """Episodes, ledger operations and the truth, in time order."""
    start = datetime(2024, 1, 1, tzinfo=UTC)
    episodes: list[dict[str, Any]] = []
    ops: list[tuple[str, ...]] = []
    truth: dict[tuple[str, str], tuple[str, set[str]]] = {}
    for p in range(people):
        person = f"person{p}"
        for attribute, (label, pool) in ATTRIBUTES.items():
            values = rng.sample(pool, rng.randint(2, 5))
            moment = start + timedelta(days=rng.randint(0, 30))
            held: set[str] = set()
            for step, value in enumerate(values):
                eid = f"{person}-{attribute}-{step}"
                at = moment.isoformat().replace("+00:00", "Z")
                episodes.append({"id": eid, "at": at, "speaker": person, "session": person,
                                 "text": f"{person} here: my {label} is {value} now."})
                ops.append(("write", person, attribute, value, at, eid))
                held.add(value)
                if rng.random() < 0.3:
                    fixed = rng.choice([v for v in pool if v not in values])
                    cid = f"{eid}-fix"
                    later = (moment + timedelta(hours=2)).isoformat().replace("+00:00", "Z")
                    episodes.append({"id": cid, "at": later, "speaker": person, "session": person,
                                     "text": f"{person} again: sorry, my {label} is {fixed}, not {value}."})
                    ops.append(("correct", person, attribute, fixed, at, cid))
                    held.add(fixed)
                    value = fixed
                moment += timedelta(days=rng.randint(10, 90))
            truth[(person, attribute)] = (value, held - {value})
            for n in range(2):
                episodes.append({"id": f"{person}-{attribute}-chat{n}", "at": moment.isoformat().replace("+00:00", "Z"),
                                 "speaker": person, "session": person, "text": f"{person}: {rng.choice(CHATTER)}"})
    return episodes, ops, truth


def first_named(text: str, pool: list[str]) -> str | None:
    found = [(text.find(v), v) for v in pool if v in text]
    return min(found)[1] if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    episodes, ops, truth = trace(args.people, random.Random(args.seed))
    tally = {"baseline": {"correct": 0, "stale": 0, "other": 0}, "sgam": {"correct": 0, "stale": 0, "other": 0}}
    with tempfile.TemporaryDirectory(prefix="sgam-stale-") as folder, \
            Memory(f"sqlite:///{Path(folder) / 'stale.db'}") as memory:
        memory.add_episodes(TENANT, episodes)
        for kind, person, attribute, value, at, source in ops:
            if kind == "write":
                memory.write(TENANT, person, attribute, value, at, source)
            else:
                memory.correct(TENANT, person, attribute, at, value, source)
        for (person, attribute), (current, earlier) in truth.items():
            label, pool = ATTRIBUTES[attribute]
            question = f"What is the {label} of {person}?"
            hits = memory.search(TENANT, question, limit=1, config="keyword")
            answers = {
                "baseline": first_named(hits[0].text, pool) if hits else None,
                "sgam": next((item.value for item in memory.recall(TENANT, question, budget=400).items
                              if item.kind == "fact" and not item.superseded), None),
            }
            for name, answer in answers.items():
                verdict = "correct" if answer == current else "stale" if answer in earlier else "other"
                tally[name][verdict] += 1
    total = len(truth)
    result = {"questions": total, **{name: {**counts, "stale_share": round(counts["stale"] / total, 4)}
                                     for name, counts in tally.items()}}
    if args.json:
        print(json.dumps(result))
    else:
        for name in ("baseline", "sgam"):
            r = result[name]
            print(f"{name:8s} stale {r['stale_share']:.1%}  correct {r['correct']}/{total}  other {r['other']}")


if __name__ == "__main__":
    main()
