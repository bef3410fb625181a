"""Behaviour snapshot for speed work: run a fixed, randomised scenario through the public
API with a ticking clock and print every answer and every stored row as JSON.

Run it before and after a change and diff the outputs; any difference is a change of
behaviour. ``python bench/golden.py > before.json`` … ``diff before.json after.json``.
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sgam import Memory, SgamError

T0 = datetime(2025, 1, 1, tzinfo=UTC)


class Ticker:
    """A clock that advances one millisecond per reading; ``stall`` repeats readings."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)
        self.step = timedelta(milliseconds=1)

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


class Address(BaseModel):
    city: str
    zip: str


def show(value: Any) -> Any:
    if hasattr(value, "__dataclass_fields__"):
        return {name: show(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, (list, tuple)):
        return [show(item) for item in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if hasattr(value, "value") and not isinstance(value, (str, int, float)):
        return value.value
    return value


def call(log: list[Any], name: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        result = fn(*args, **kwargs)
        log.append([name, show(result)])
        return result
    except SgamError as exc:
        log.append([name, type(exc).__name__, str(exc)])
        return None


def scenario(path: Path, seed: int) -> list[Any]:
    rng = random.Random(seed)
    clock = Ticker()
    log: list[Any] = []
    mem = Memory(f"sqlite:///{path}", clock=clock)
    tenants = ["acme", "globex"]
    subjects = ["alice", "bob", "carol"]
    attributes = ["city", "age", "plan", "address"]
    for tenant in tenants:
        for e in range(4):
            call(log, "episode", mem.add_episode, tenant, f"ep{e}", T0, f"text {e}")
        call(log, "episode-dup", mem.add_episode, tenant, "ep0", T0, "text 0")
        call(log, "episode-conflict", mem.add_episode, tenant, "ep0", T0, "other")
        call(log, "declare", mem.declare, tenant, "age", "integer")
        call(log, "register", mem.register_memory_type, tenant, "addr", Address)
        call(log, "declare", mem.declare, tenant, "address", None, memory_type="addr")
    for _step in range(1500):
        tenant = rng.choice(tenants)
        subject, attribute = rng.choice(subjects), rng.choice(attributes)
        moment = T0 + timedelta(days=rng.randrange(60))
        source = f"ep{rng.randrange(5)}"
        if rng.random() < 0.05:
            clock.now -= timedelta(seconds=2)  # the wall clock steps back
        if rng.random() < 0.1:
            clock.step = timedelta(0)  # many operations at one instant
        else:
            clock.step = timedelta(milliseconds=1)
        value: Any = {
            "age": rng.randrange(3), "address": {"city": rng.choice("xy"), "zip": "1"},
        }.get(attribute, rng.choice(["a", "b", "c"]))
        if rng.random() < 0.03:
            value = "not-an-int" if attribute == "age" else {"bad": 1}
        roll = rng.random()
        if roll < 0.55:
            call(log, "write", mem.write, tenant, subject, attribute, value, moment, source)
        elif roll < 0.65:
            call(log, "retract", mem.retract, tenant, subject, attribute, moment, source)
        elif roll < 0.75:
            call(log, "correct", mem.correct, tenant, subject, attribute, moment, value, source)
        elif roll < 0.85:
            facts = [
                {"subject": rng.choice(subjects), "attribute": rng.choice(["city", "plan"]),
                 "value": rng.choice(["a", "b", "c"]),
                 "valid_from": (T0 + timedelta(days=rng.randrange(60))).isoformat(),
                 "source": f"ep{rng.randrange(5)}"}
                for _ in range(rng.randrange(1, 8))
            ]
            call(log, "write_many", mem.write_many, tenant, facts)
        elif roll < 0.97:
            at = T0 + timedelta(days=rng.randrange(70), hours=rng.randrange(24))
            known = clock.now - timedelta(milliseconds=rng.randrange(200))
            call(log, "get", mem.get, tenant, subject, attribute)
            call(log, "get-at", mem.get, tenant, subject, attribute, at=at)
            call(log, "get-known", mem.get, tenant, subject, attribute, at=at, known_at=known)
            call(log, "history", mem.history, tenant, subject, attribute)
            call(log, "history-known", mem.history, tenant, subject, attribute, known_at=known)
            call(log, "versions", mem.versions, tenant, subject, attribute)
            call(log, "query", mem.query, tenant, attribute=attribute, at=at, limit=50)
        elif roll < 0.985:
            call(log, "forget_episode", mem.forget_episode, tenant, f"ep{rng.randrange(4)}")
            call(log, "episode", mem.add_episode, tenant, f"ep{rng.randrange(4)}", T0, "again")
        else:
            call(log, "forget_subject", mem.forget_subject, tenant, subject)
    mem.close()
    conn = sqlite3.connect(path)
    for table, order in (("assertions", "row_id"), ("operations", "seq"), ("episodes", "seq"),
                         ("erasures", "seq")):
        rows = conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
        log.append([table, rows])
    conn.close()
    return log


def main() -> None:
    seeds = [int(s) for s in sys.argv[1:]] or [1, 2, 3]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            out.append(scenario(Path(tmp) / f"g{seed}.db", seed))
    json.dump(out, sys.stdout, indent=0, default=str)
    print()


if __name__ == "__main__":
    main()
