"""The shared boundary: one error table, one JSON encoding, opaque cursors, the async twin."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import IntEnum, StrEnum
from typing import Any, NamedTuple

import pytest
from pydantic import BaseModel

import sgam
from sgam import AsyncMemory, Memory, ValidationError
from sgam._core.errors import ERROR_KINDS
from sgam.boundary import (
    ERROR_STATUSES,
    decode_cursor,
    dumps,
    encode_cursor,
    exit_status,
    http_status,
    problem,
    to_json,
    to_json_data,
)
from sgam.extraction.clients import ModelError
from sgam.replay.loader import ScenarioFileError

AT = "2026-03-01T00:00:00.000000Z"


def test_every_error_kind_has_one_status() -> None:
    for error in (*ERROR_KINDS, ModelError, ScenarioFileError):
        assert error.kind in ERROR_STATUSES, error
    assert exit_status(ValidationError("x", 1, "bad")) == 3
    assert http_status(sgam.NotFoundError("gone")) == 404
    assert http_status(sgam.BusyError("busy")) == 503
    assert http_status(sgam.SgamError("a bug")) == 500 and exit_status(sgam.SgamError("a bug")) == 1


def test_problem_document_is_rfc9457_with_kind_and_field() -> None:
    doc = problem(ValidationError("subject", "", "must not be empty"), instance="/v1/facts")
    assert doc == {"type": "urn:sgam:error:validation", "title": "Invalid input", "status": 422,
                   "detail": "subject: must not be empty (got '')", "kind": "validation", "field": "subject",
                   "instance": "/v1/facts"}


class Colour(StrEnum):
    RED = "red"


class Rank(IntEnum):
    FIRST = 1


class Point(NamedTuple):
    x: int
    y: int


class Shape(BaseModel):
    name: str
    at: datetime


@dataclass(frozen=True)
class Inner:
    colour: Colour
    when: datetime


@dataclass(frozen=True)
class Outer:
    inner: Inner
    items: tuple[Any, ...]
    extra: dict[Any, Any]


def test_to_json_of_every_kind_of_value() -> None:
    """Plain values pass as they are; subclasses of plain types (enums on str or int, a
    named tuple, an ordered dict) are encoded by what they are, not taken for plain."""
    when = datetime(2026, 1, 1, tzinfo=UTC)
    encoded = to_json(Outer(Inner(Colour.RED, when), (Rank.FIRST, Point(1, 2), True, None, 1.5),
                            OrderedDict([(1, Shape(name="s", at=when))])))
    assert encoded == {"inner": {"colour": "red", "when": "2026-01-01T00:00:00.000000Z"},
                       "items": [1, [1, 2], True, None, 1.5],
                       "extra": {"1": {"name": "s", "at": "2026-01-01T00:00:00Z"}}}
    assert type(encoded["inner"]["colour"]) is str and type(encoded["items"][0]) is int
    assert to_json(Inner(Colour.RED, when)) == to_json(Inner(Colour.RED, when))  # field names cached per class


def test_results_encode_as_json(memory: Memory) -> None:
    memory.add_episode("acme", "e1", AT, "Mira moved to Rome — ünïcode")
    result = memory.write("acme", "mira", "city", {"name": "Rome"}, AT, "e1")
    data = json.loads(dumps(result))
    assert data["effect"] == "created"
    assert data["assertion"]["value"] == {"name": "Rome"}
    assert data["assertion"]["valid_from"] == "2026-03-01T00:00:00.000000Z"
    assert to_json(memory.episode("acme", "e1"))["text"] == "Mira moved to Rome — ünïcode"
    assert to_json(datetime(2026, 1, 1, tzinfo=UTC)) == "2026-01-01T00:00:00.000000Z"


def test_cursors_round_trip_and_refuse_tampering() -> None:
    cursor = encode_cursor("mira", "city", 17)
    assert decode_cursor(cursor, (str, str, int)) == ("mira", "city", 17)
    for bad in ("", "!!", cursor[:-3], encode_cursor("mira", "city", "17"), encode_cursor("a"), "x" * 5000, 3):
        with pytest.raises(ValidationError, match="cursor"):
            decode_cursor(bad, (str, str, int))


def test_constructor_reads_no_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setenv("SGAM_EMBEDDER", "openai:some-model@8")
    with Memory(f"sqlite:///{tmp_path}/a.db") as memory:
        assert memory._search.embedder is None
    monkeypatch.setenv("SGAM_DATABASE_URL", f"sqlite:///{tmp_path}/b.db")
    monkeypatch.setenv("SGAM_EMBEDDER", "")
    with Memory.from_env() as memory:
        assert memory.backend.url.endswith("/b.db")


def test_async_memory_twins_every_public_method() -> None:
    public = {name for name, _ in inspect.getmembers(Memory, inspect.isfunction) if not name.startswith("_")}
    public -= {"close", "from_env", "bound"}  # ``bound`` makes a view (AsyncMemory's is ``around``), no call
    for name in public:
        assert inspect.iscoroutinefunction(getattr(AsyncMemory, name)), name
        assert getattr(AsyncMemory, name).__doc__ == getattr(Memory, name).__doc__


def test_async_memory_calls_run_off_the_loop(memory: Memory) -> None:
    async def scenario() -> None:
        amemory = AsyncMemory(memory, workers=4)
        await amemory.add_episode("acme", "e1", AT, "Mira lives in Rome")
        results = await asyncio.gather(*(
            amemory.write("acme", f"s{i}", "city", "Rome", AT, "e1") for i in range(20)))
        assert {r.effect.value for r in results} == {"created"}
        page = await amemory.query("acme", limit=15)
        assert len(page) == 15 and page.next_cursor is not None
        rest = await amemory.query("acme", limit=15, cursor=page.next_cursor)
        assert len(rest) == 5 and rest.next_cursor is None
        with pytest.raises(ValidationError):
            await amemory.get("acme", "", "city")
        await amemory.aclose()

    asyncio.run(scenario())
    assert memory.get("acme", "s3", "city") is not None  # the wrapped Memory stays open


class _Opaque:
    """A caller's own type, which no encoding knows."""

    def __repr__(self) -> str:
        return "Opaque(7)"


def test_to_json_data_encodes_what_it_knows_and_names_what_it_does_not() -> None:
    """What a run stored (a LangGraph state, an interrupt's value) is answered whatever it
    holds: records and timestamps as ``to_json`` encodes them, unknown objects by repr."""
    moment = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
    stored = {"when": moment, "items": (1, "two", _Opaque()), 3: {"deep": [_Opaque()]}}
    assert to_json_data(stored) == {"when": "2026-06-01T09:00:00.000000Z", "items": [1, "two", "Opaque(7)"],
                                    "3": {"deep": ["Opaque(7)"]}}
    json.dumps(to_json_data(stored))  # plain JSON data all the way down
