"""Hostile arguments for fuzzing sgam's surfaces: wrong types, huge and deep values, odd
Unicode, plus plausible values chosen by parameter name so calls get past the first check.

``SGAM_FUZZ_EXAMPLES`` sets how many examples each fuzz test runs (each example makes
``CALLS_PER_EXAMPLE`` calls); the default keeps ``make test`` quick, and
``SGAM_FUZZ_EXAMPLES=2000`` is the long run (10,000 library calls per backend).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from contextlib import closing
from datetime import datetime
from decimal import Decimal
from typing import Any

import psycopg
from hypothesis import strategies as st
from pydantic import BaseModel

from sgam.extraction import ExtractionPolicy, ScriptedClient
from sgam.store.postgres.migrations import TENANT_TABLES

EXAMPLES = int(os.environ.get("SGAM_FUZZ_EXAMPLES", "40"))
CALLS_PER_EXAMPLE = 5


def nested(depth: int, leaf: Any = 1, kind: str = "list") -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


class Opaque:
    """An object with nothing JSON about it, whose repr fails."""

    def __repr__(self) -> str:
        raise RuntimeError("no repr")


class Note(BaseModel):
    text: str


surrogates = st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3)
odd_text = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec="utf-8"), max_size=40),
    surrogates,
    st.tuples(st.text(max_size=5), surrogates, st.text(max_size=5)).map("".join),
    st.sampled_from(["", " ", "\x00", "a\x00b", "\u202e", "\ufeff", "zoë", "😀", "\\u00eb", "'; DROP TABLE x;--",
                     "%", "_", "\"", "*", "NEAR(a b)", "a OR b", "\n\t", "..", "../../etc", "a" * 300]),
)
huge = st.one_of(  # built at draw time: hypothesis reprs its strategies, and these values' reprs are huge or fail
    st.builds(str.__mul__, st.just("x"), st.just(300_000)),
    st.builds(list.__mul__, st.just(["x"]), st.just(70_000)),
    st.builds(lambda n: {str(k): k for k in range(n)}, st.just(20_000)),
    st.builds(pow, st.just(10), st.sampled_from([4_000, 5_000])),
)
deep = st.one_of(
    st.integers(99, 102).map(nested),
    st.builds(nested, st.sampled_from([5_000, 200])),
    st.builds(nested, st.just(5_000), st.just(1), st.just("dict")),
)
numbers = st.one_of(
    st.integers(), st.integers(min_value=2**63 - 2, max_value=2**64), st.integers(max_value=-(2**63)),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([10**30, -1, 0, Decimal("1.5"), 1 + 2j]),
)
wrong_types = st.one_of(
    st.none(), st.booleans(), st.binary(max_size=10), st.sets(st.integers(), max_size=3),
    st.tuples(st.integers()), st.builds(Opaque), st.just(object()), st.just(len), st.just(Note),
    st.just(datetime(2026, 6, 1)), st.just(datetime(2026, 6, 1).astimezone()),
    st.dictionaries(st.integers(), st.integers(), max_size=2), st.just([[]]), st.just({}),
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), odd_text),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(odd_text, inner, max_size=3)),
    max_leaves=10,
)
hostile = st.one_of(odd_text, numbers, wrong_types, json_values, deep, huge)

TIMES = ["2026-06-01T00:00:00Z", "2026-06-02T12:00:00+02:00", "2026-06-01", "2026-06-01T00:00:00",
         "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "now"]
IDS = ["e1", "e2", "e3", "gone"]


def _reply() -> st.SearchStrategy[Any]:
    update = st.fixed_dictionaries({
        "evidence": st.sampled_from(["mira lives in Paris.", "nothing like it"]) | odd_text,
        "subject": st.sampled_from(["mira", "zoë"]) | hostile, "attribute": st.just("city") | hostile,
        "change": st.sampled_from(["new", "update", "retract", "no_change"]) | hostile,
        "value": json_values | hostile, "confidence": st.floats(0, 1) | hostile,
    })
    return st.one_of(st.builds(lambda u: {"updates": [u]}, update), odd_text, json_values, deep)


def _client() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda r: ScriptedClient.of([r]), _reply().filter(_serialisable)),
        st.just(ScriptedClient()), wrong_types,
    )


def _serialisable(value: Any) -> bool:
    try:
        ScriptedClient.of([value])
    except Exception:  # noqa: BLE001 - filtered out here, tested elsewhere
        return False
    return True


PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "tenant": st.sampled_from(["acme", "globex"]),
    "id": st.sampled_from(IDS), "episode": st.sampled_from(IDS), "episode_id": st.sampled_from(IDS),
    "source": st.sampled_from(IDS),
    "subject": st.sampled_from(["mira", "zoë", "ann"]), "attribute": st.sampled_from(["city", "drink"]),
    "value": json_values, "at": st.sampled_from(TIMES), "valid_from": st.sampled_from(TIMES),
    "known_at": st.sampled_from(TIMES), "since": st.sampled_from(TIMES), "until": st.sampled_from(TIMES),
    "text": odd_text, "question": odd_text, "description": odd_text,
    "limit": st.integers(-2, 20), "batch": st.integers(-2, 20), "budget": st.integers(-2, 3000),
    "held_id": st.integers(-1, 5), "wait": st.sampled_from([0, 0.0, -1, float("nan"), 10**9]),
    "config": st.sampled_from(["default", "keyword", "nope"]),
    "metadata": st.dictionaries(st.text(max_size=5), json_values, max_size=3),
    "speaker": st.sampled_from(["ann", None]), "session": st.sampled_from(["s1", None]),
    "kind": st.sampled_from(["message", "tool"]), "memory_type": st.sampled_from([None, "fact", "note"]),
    "status": st.sampled_from([None, "open", "confirmed", "bogus"]),
    "value_type": st.sampled_from(["string", "integer", "date", None, "nope"]),
    "name": st.sampled_from(["note", "fact"]), "model": st.just(Note),
    "confidence": st.floats(0, 1), "sensitive": st.booleans(), "all_times": st.booleans(),
    "extract": st.booleans(), "policy": st.just(ExtractionPolicy.off()),
    "client": _client(),
    "episodes": st.lists(st.fixed_dictionaries({"id": st.sampled_from(IDS), "at": st.sampled_from(TIMES),
                                                "text": odd_text}), max_size=3),
    "facts": st.lists(st.fixed_dictionaries({
        "subject": st.sampled_from(["mira", "ann"]), "attribute": st.just("city"), "value": json_values,
        "valid_from": st.sampled_from(TIMES), "source": st.sampled_from(IDS)}), max_size=3),
}


def argument(name: str) -> st.SearchStrategy[Any]:
    """Mostly plausible for the parameter's name (so calls reach deeper checks), often hostile."""
    plausible = PLAUSIBLE.get(name, hostile)
    return st.one_of(plausible, plausible, plausible, hostile)


def table_hashes(url: str, admin: str | None) -> dict[str, str]:
    """A digest of every table's rows, read behind the application's back (the SQLite file,
    or PostgreSQL's owner, whom row-level security does not bind)."""
    if url.startswith("sqlite:///"):
        with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as conn:
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            out = {}
            for table in tables:
                digest = hashlib.sha256()
                for row in conn.execute(f'SELECT * FROM "{table}" ORDER BY 1'):
                    digest.update(repr(row).encode("utf-8", "backslashreplace"))
                out[table] = digest.hexdigest()
            return out
    assert admin is not None
    union = " UNION ALL ".join(
        f"SELECT '{t}', md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM {t} x"
        for t in (*TENANT_TABLES, "vector_dimensions")
    )
    with psycopg.connect(admin, autocommit=True) as conn:
        return {str(name): str(digest) for name, digest in conn.execute(union).fetchall()}
