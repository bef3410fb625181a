"""Every public ``Memory`` method refuses malformed arguments with an sgam error (never a
TypeError, AttributeError, OverflowError or a driver error) and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from sgam import Memory, SgamError, ValidationError
from sgam.boundary import encode_cursor

AT = "2026-01-01T00:00:00Z"
NAIVE = datetime(2026, 1, 1)

CALLS: dict[str, Callable[[Memory], Any]] = {
    "declare attribute int": lambda m: m.declare("t", 5, "string"),  # type: ignore[arg-type]
    "declare type int": lambda m: m.declare("t", "a", 5),  # type: ignore[arg-type]
    "declare sensitive str": lambda m: m.declare("t", "a", "string", sensitive="no"),  # type: ignore[arg-type]
    "tenant int": lambda m: m.get(5, "mira", "city"),  # type: ignore[arg-type]
    "tenant None": lambda m: m.episodes(None),  # type: ignore[arg-type]
    "add_episode naive at": lambda m: m.add_episode("t", "e2", NAIVE, "x"),
    "add_episode text int": lambda m: m.add_episode("t", "e2", AT, 5),  # type: ignore[arg-type]
    "add_episode kind list": lambda m: m.add_episode("t", "e2", AT, "x", kind=[]),  # type: ignore[arg-type]
    "add_episode metadata object": lambda m: m.add_episode("t", "e2", AT, "x", metadata={"a": object()}),
    "add_episode text nul": lambda m: m.add_episode("t", "e2", AT, "a\x00b"),
    "add_episode id nul": lambda m: m.add_episode("t", "e\x002", AT, "x"),
    "add_episode huge text": lambda m: m.add_episode("t", "e2", AT, "x" * 20_000_000),
    "add_episodes None": lambda m: m.add_episodes("t", None),  # type: ignore[arg-type]
    "add_episodes int": lambda m: m.add_episodes("t", 5),  # type: ignore[arg-type]
    "add_episodes str": lambda m: m.add_episodes("t", "abc"),  # type: ignore[arg-type]
    "episode id int": lambda m: m.episode("t", 5),  # type: ignore[arg-type]
    "extract client bool": lambda m: m.extract("t", "e1", client=False),  # type: ignore[arg-type]
    "extract policy int": lambda m: m.extract("t", "e1", policy=3),  # type: ignore[arg-type]
    "remember client str": lambda m: m.remember("t", "e9", AT, "x", client="gpt"),  # type: ignore[arg-type]
    "episodes session int": lambda m: m.episodes("t", session=5),  # type: ignore[arg-type]
    "episodes limit str": lambda m: m.episodes("t", limit="5"),  # type: ignore[arg-type]
    "write value nan": lambda m: m.write("t", "mira", "c", float("nan"), AT, "e1"),
    "write value object": lambda m: m.write("t", "mira", "c", object(), AT, "e1"),
    "write value set": lambda m: m.write("t", "mira", "c", {1, 2}, AT, "e1"),
    "write naive": lambda m: m.write("t", "mira", "c", "x", NAIVE, "e1"),
    "write confidence str": lambda m: m.write("t", "mira", "c", "x", AT, "e1", confidence="1"),  # type: ignore[arg-type]
    "write memory_type int": lambda m: m.write("t", "mira", "c", "x", AT, "e1", memory_type=5),  # type: ignore[arg-type]
    "write subject None": lambda m: m.write("t", None, "c", "x", AT, "e1"),  # type: ignore[arg-type]
    "write_many None": lambda m: m.write_many("t", None),  # type: ignore[arg-type]
    "write_many int": lambda m: m.write_many("t", 5),  # type: ignore[arg-type]
    "write_many str entries": lambda m: m.write_many("t", ["abc"]),  # type: ignore[list-item]
    "retract naive": lambda m: m.retract("t", "mira", "city", NAIVE, "e1"),
    "correct inf": lambda m: m.correct("t", "mira", "city", AT, float("inf"), "e1"),
    "forget_subject int": lambda m: m.forget_subject("t", 5),  # type: ignore[arg-type]
    "forget_episode None": lambda m: m.forget_episode("t", None),  # type: ignore[arg-type]
    "get at int": lambda m: m.get("t", "mira", "city", at=5),  # type: ignore[arg-type]
    "get known_at naive": lambda m: m.get("t", "mira", "city", known_at=NAIVE),
    "get subject huge": lambda m: m.get("t", "x" * 1_000_000, "city"),
    "history known_at int": lambda m: m.history("t", "mira", "city", known_at=5),  # type: ignore[arg-type]
    "query cursor not a cursor": lambda m: m.query("t", cursor="x"),
    "query cursor of another shape": lambda m: m.query("t", cursor=encode_cursor("a", 1)),
    "query cursor not a str": lambda m: m.query("t", cursor=7),  # type: ignore[arg-type]
    "query all_times str": lambda m: m.query("t", all_times="yes"),  # type: ignore[arg-type]
    "query limit 0": lambda m: m.query("t", limit=0),
    "extractions episode int": lambda m: m.extractions("t", episode=5),  # type: ignore[arg-type]
    "held status unknown": lambda m: m.held("t", status="bogus"),
    "held status int": lambda m: m.held("t", status=5),  # type: ignore[arg-type]
    "confirm str": lambda m: m.confirm("t", "1"),  # type: ignore[arg-type]
    "confirm huge": lambda m: m.confirm("t", 10**30),
    "reject huge": lambda m: m.reject("t", 10**30),
    "search question int": lambda m: m.search("t", 5),  # type: ignore[arg-type]
    "search question None": lambda m: m.search("t", None),  # type: ignore[arg-type]
    "search config unknown": lambda m: m.search("t", "x", config="nope"),
    "search since naive": lambda m: m.search("t", "x", since=NAIVE),
    "recall question int": lambda m: m.recall("t", 5),  # type: ignore[arg-type]
    "recall budget str": lambda m: m.recall("t", "x", budget="5"),  # type: ignore[arg-type]
    "recall budget negative": lambda m: m.recall("t", "x", budget=-5),
    "index_episodes batch str": lambda m: m.index_episodes("t", batch="5"),  # type: ignore[arg-type]
    "reembed embedder int": lambda m: m.reembed("t", 5),  # type: ignore[arg-type]
    "reembed embedder unknown": lambda m: m.reembed("t", "nope:model"),
    "reembed batch str": lambda m: m.reembed("t", "wordllama", batch="5"),  # type: ignore[arg-type]
    "reembed progress int": lambda m: m.reembed("t", "wordllama", progress=5),  # type: ignore[arg-type]
    "index_status tenant int": lambda m: m.index_status(5),  # type: ignore[arg-type]
    "register_memory_type model int": lambda m: m.register_memory_type("t", "x", 5),  # type: ignore[arg-type]
    "extract episode int": lambda m: m.extract("t", 5),  # type: ignore[arg-type]
    "remember naive at": lambda m: m.remember("t", "e9", NAIVE, "x", extract=False),
    "schema tenant int": lambda m: m.schema(5),  # type: ignore[arg-type]
}


def _state(memory: Memory) -> Any:
    return (
        memory.episodes("t"), memory.query("t", all_times=True), memory.schema("t"),
        memory.held("t", status=None), memory.extractions("t"),
    )


@pytest.mark.parametrize("name", list(CALLS))
def test_malformed_arguments_raise_an_sgam_error_and_change_nothing(memory: Memory, name: str) -> None:
    memory.add_episode("t", "e1", AT, "hello mira")
    memory.write("t", "mira", "city", "Oslo", AT, "e1")
    before = _state(memory)
    with pytest.raises(SgamError):
        CALLS[name](memory)
    assert _state(memory) == before


LINE_END = "\n"
LINE_ENDINGS: dict[str, tuple[Callable[[Memory], Any], str]] = {
    "add_episode tenant": (lambda m: m.add_episode("t" + LINE_END, "e2", AT, "x"), "tenant"),
    "write tenant": (lambda m: m.write("t" + LINE_END, "mira", "city", "Rome", AT, "e1"), "tenant"),
    "get tenant": (lambda m: m.get("t" + LINE_END, "mira", "city"), "tenant"),
    "consent tenant": (lambda m: m.consent("t" + LINE_END, "mira", False), "tenant"),
    "forget_subject tenant": (lambda m: m.forget_subject("t" + LINE_END, "mira"), "tenant"),
    "add_episode at": (lambda m: m.add_episode("t", "e2", AT + LINE_END, "x"), "at"),
    "add_episode at carriage return": (lambda m: m.add_episode("t", "e2", AT + "\r\n", "x"), "at"),
    "write valid_from": (lambda m: m.write("t", "mira", "city", "Rome", AT + LINE_END, "e1"), "valid_from"),
    "retract at": (lambda m: m.retract("t", "mira", "city", AT + LINE_END, "e1"), "at"),
    "get at": (lambda m: m.get("t", "mira", "city", at=AT + LINE_END), "at"),
    "get known_at": (lambda m: m.get("t", "mira", "city", known_at="\t" + AT), "known_at"),
    "add_episode id": (lambda m: m.add_episode("t", "e2" + LINE_END, AT, "x"), "id"),
    "write subject": (lambda m: m.write("t", "mira" + LINE_END, "city", "Rome", AT, "e1"), "subject"),
    "write attribute": (lambda m: m.write("t", "mira", "city" + LINE_END, "Rome", AT, "e1"), "attribute"),
    "consent subject": (lambda m: m.consent("t", "mira" + LINE_END, False), "subject"),
    "forget_subject subject": (lambda m: m.forget_subject("t", "mira\x85"), "subject"),
    "document retention": (lambda m: m.documents.write("t", "/memories/a.md", "x", retention="default\n"),
                           "retention"),
}


@pytest.mark.parametrize("name", list(LINE_ENDINGS))
def test_a_final_newline_or_a_control_character_is_refused_naming_the_field(memory: Memory, name: str) -> None:
    memory.add_episode("t", "e1", AT, "hello mira")
    memory.write("t", "mira", "city", "Oslo", AT, "e1")
    before = _state(memory)
    call, field = LINE_ENDINGS[name]
    with pytest.raises(ValidationError) as refused:
        call(memory)
    assert refused.value.field == field
    assert _state(memory) == before and memory.consents("t") == [] and memory.documents.all("t") == []
