"""A checkpoint row whose stored bytes cannot be read (another writer's kind, damaged or
truncated msgpack, nesting past the decoder's depth, metadata or a checkpoint that is not
a mapping, a LangChain ``lc`` envelope) or that the saver refuses to rebuild (a pickle, a
type it was not told of) is a ``StoreError`` naming the checkpoint from ``get_tuple`` and
``list``, and a problem answer from ``GET /v1/threads/{id}``; nothing a stored value
names is imported or called."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import sys
from contextlib import closing
from typing import Any

import ormsgpack
import psycopg
import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from sgam import StoreError
from sgam.langgraph import SgamSaver

from ..conftest import Store
from .conftest import Served

ENVELOPE = json.dumps({"lc": 1, "type": "constructor", "id": ["langchain", "prompts", "prompt", "PromptTemplate"],
                       "kwargs": {"template": "{x}", "input_variables": ["x"]}}).encode()
GOOD = ormsgpack.packb({"v": 1, "id": "x", "channel_values": {"notes": "n" * 40}})
PICKLED = b"cbuiltins\nprint\n(S'a pickle was loaded'\ntR."
"""A pickle that would call ``print`` if it were ever loaded."""


@dataclasses.dataclass
class Undeclared:
    """A type a laxer writer stored and this saver was not told to rebuild."""

    text: str


_, BLOCKED = JsonPlusSerializer().dumps_typed({"v": 1, "id": "x", "channel_values": {"note": Undeclared("q3")}})
PLANTED: dict[str, tuple[str, str, bytes]] = {
    "unknown kind": ("body", "zstd-frame", b"\x28\xb5\x2f\xfd"),
    "garbage msgpack": ("body", "msgpack", b"\xc1\xc1\xff\x00\x13"),
    "truncated msgpack": ("body", "msgpack", GOOD[: len(GOOD) // 2]),
    "deep nesting": ("body", "msgpack", b"\x91" * 200_000 + b"\xc0"),
    "checkpoint not a mapping": ("body", "msgpack", ormsgpack.packb([1, 2, 3])),
    "metadata not a mapping": ("metadata", "msgpack", ormsgpack.packb([1, 2, 3])),
    "metadata garbage": ("metadata", "msgpack", b"\xc1"),
    "lc envelope": ("body", "json", ENVELOPE),
    "pending write garbage": ("write", "msgpack", b"\xc1\xc1"),
    "pickle": ("body", "pickle", PICKLED),
    "pending write pickle": ("write", "pickle", PICKLED),
    "undeclared type": ("body", "msgpack", BLOCKED),
}


def _plant(store: Store, column: str, kind: str, body: bytes) -> None:
    """Overwrite the stored checkpoint's (or its pending write's) bytes behind the
    saver's back, as another writer or a damaged disk would."""
    if column == "write":
        statement = "UPDATE saver_writes SET kind = {0}, body = {0}"
    elif column == "metadata":
        statement = "UPDATE saver_checkpoints SET metadata_kind = {0}, metadata = {0}"
    else:
        statement = "UPDATE saver_checkpoints SET kind = {0}, body = {0}"
    if store.backend == "sqlite":
        with closing(sqlite3.connect(store.admin)) as conn, conn:
            conn.execute(statement.format("?"), (kind, body))
    else:
        with psycopg.connect(store.admin, autocommit=True) as conn:
            conn.execute(statement.format("%s"), (kind, body))  # type: ignore[arg-type]


def _put(saver: SgamSaver) -> dict[str, Any]:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = {"notes": "draft"}
    stored = saver.put({"configurable": {"thread_id": "t-1"}}, checkpoint, {"step": 1, "source": "loop"}, {})
    saver.put_writes(stored, [("notes", "pending")], "task-1")
    return dict(stored)


@pytest.mark.parametrize("planted", list(PLANTED), ids=list(PLANTED))
def test_an_unreadable_row_is_a_store_error_naming_the_checkpoint(
    served: Served, store: Store, planted: str,
) -> None:
    saver = SgamSaver(served.memory, tenant="acme")
    stored = _put(saver)
    checkpoint_id = stored["configurable"]["checkpoint_id"]
    _plant(store, *PLANTED[planted])
    modules = set(sys.modules)
    for read in (lambda: saver.get_tuple({"configurable": {"thread_id": "t-1"}}),
                 lambda: saver.get_tuple(stored),  # type: ignore[arg-type]
                 lambda: list(saver.list({"configurable": {"thread_id": "t-1"}})),
                 lambda: list(saver.list(None, filter={"step": 1}))):
        with pytest.raises(StoreError) as unreadable:
            read()
        assert checkpoint_id in str(unreadable.value) and "'t-1'" in str(unreadable.value)
        assert unreadable.value.field == "checkpoint_id"
    with served.client("acme", "read") as client:
        shown = client.get("/v1/threads/t-1")
    assert shown.status_code == 500 and shown.headers["content-type"].startswith("application/problem+json")
    assert shown.json()["kind"] == "store" and checkpoint_id in shown.json()["detail"]
    assert not {name for name in set(sys.modules) - modules if "prompt" in name}  # nothing it names was imported
