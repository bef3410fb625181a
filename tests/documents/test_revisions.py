"""Revisions: every change kept with its author, reads of past revisions, diff, restore,
optimistic writes, metadata; and bad input that changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from sgam import ConflictError, Memory, NotFoundError, ValidationError
from sgam.documents import Provenance
from sgam.documents.text import MAX_DOCUMENT_BYTES
from sgam.tools import MemoryTool
from tests.conftest import ManualClock

T = "acme"
P = "/memories/plan.md"


def state(memory: Memory) -> list[tuple[str, int, str]]:
    docs = memory.documents
    return [(d.path, d.revision, d.content) for d in docs.all(T)] + [
        (r.path, r.revision, r.op) for d in docs.all(T) for r in docs.history(T, d.path)]


def test_every_change_is_a_revision_with_its_author_and_time(memory: Memory, clock: ManualClock) -> None:
    docs = memory.documents
    docs.create(T, P, "v1\n", by=Provenance("alice", "ep-1", None), source="handbook")
    clock.advance(60)
    docs.write(T, P, "v2\n", by=Provenance("bob"))
    clock.advance(60)
    docs.str_replace(T, P, "v2", "v3", by=Provenance(call="toolu_9"))
    history = docs.history(T, P)
    assert [(r.revision, r.op, r.content, r.author, r.episode, r.call) for r in history] == [
        (1, "create", "v1\n", "alice", "ep-1", None), (2, "write", "v2\n", "bob", None, None),
        (3, "str_replace", "v3\n", None, None, "toolu_9")]
    assert history[2].recorded_at > history[1].recorded_at > history[0].recorded_at
    assert docs.revision(T, P, 2).content == "v2\n"
    document = docs.read(T, P)
    assert (document.revision, document.source, document.retention, document.size) == (3, "handbook", "default", 3)
    assert document.created_at == history[0].recorded_at and document.updated_at == history[2].recorded_at


def test_diff_between_revisions(memory: Memory) -> None:
    docs = memory.documents
    docs.create(T, P, "a\nb\nc\n")
    docs.str_replace(T, P, "b", "B")
    assert docs.diff(T, P, 1) == (
        f"--- {P}@1\n+++ {P}@2\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n")
    assert docs.diff(T, P, 2, 2) == ""
    with pytest.raises(NotFoundError, match="no revision 9"):
        docs.diff(T, P, 9)


def test_restore_brings_back_an_earlier_text_as_a_new_revision(memory: Memory) -> None:
    docs = memory.documents
    docs.create(T, P, "good\n")
    docs.write(T, P, "bad\n")
    restored = docs.restore(T, P, 1)
    assert (restored.revision, restored.content) == (3, "good\n")
    assert [r.op for r in docs.history(T, P)] == ["create", "write", "restore"]


def test_a_deleted_document_keeps_its_history_and_can_be_restored(memory: Memory) -> None:
    docs = memory.documents
    docs.create(T, P, "keep me\n")
    docs.delete(T, P)
    assert docs.get(T, P) is None
    assert [(r.op, r.content) for r in docs.history(T, P)] == [("create", "keep me\n"), ("delete", None)]
    with pytest.raises(ValidationError, match="is a deletion"):
        docs.restore(T, P, 2)
    assert docs.restore(T, P, 1).content == "keep me\n"
    assert docs.read(T, P).revision == 3


def test_a_write_naming_a_stale_revision_fails_and_changes_nothing(memory: Memory) -> None:
    docs = memory.documents
    docs.create(T, P, "one\n")
    read = docs.read(T, P)
    docs.write(T, P, "two\n")
    before = state(memory)
    for change in (
        lambda: docs.write(T, P, "three\n", expected_revision=read.revision),
        lambda: docs.str_replace(T, P, "two", "x", expected_revision=read.revision),
        lambda: docs.insert(T, P, 0, "x", expected_revision=read.revision),
        lambda: docs.delete(T, P, expected_revision=read.revision),
        lambda: docs.rename(T, P, "/memories/other.md", expected_revision=read.revision),
        lambda: docs.restore(T, P, 1, expected_revision=read.revision),
        lambda: docs.write(T, P, "x", expected_revision=0),
        lambda: docs.write(T, "/memories/new.md", "x", expected_revision=3),
    ):
        with pytest.raises(ConflictError):
            change()
    assert state(memory) == before
    assert docs.write(T, P, "three\n", expected_revision=2).revision == 3


def test_metadata_source_review_and_retention(memory: Memory) -> None:
    docs = memory.documents
    docs.create(T, P, "x", retention="session")
    updated = docs.set_metadata(T, P, source="wiki/plan", reviewed_at="2026-07-02T10:00:00Z")
    assert (updated.source, updated.reviewed_at is not None, updated.retention, updated.revision) == (
        "wiki/plan", True, "session", 1)
    assert docs.set_metadata(T, P, retention="legal-hold").retention == "legal-hold"
    with pytest.raises(ValidationError, match="retention"):
        docs.set_metadata(T, P, retention="Not A Class!")


BAD_TOOL_INPUTS: list[tuple[dict[str, Any], str]] = [
    ({"command": "create", "path": "/memories/big.md", "file_text": "x" * (MAX_DOCUMENT_BYTES + 1)},
     f"larger than the {MAX_DOCUMENT_BYTES} bytes"),
    ({"command": "create", "path": "/memories/bin.md", "file_text": "PK\x03\x04\x00\x00"}, "looks binary"),
    ({"command": "create", "path": "/memories/u.md", "file_text": "bad \udcff byte"}, "valid UTF-8"),
    ({"command": "str_replace", "path": P, "old_str": "alpha", "new_str": "\x00"}, "looks binary"),
    ({"command": "str_replace", "path": P, "old_str": "alpha", "new_str": "y" * MAX_DOCUMENT_BYTES},
     f"larger than the {MAX_DOCUMENT_BYTES} bytes"),
    ({"command": "insert", "path": P, "insert_line": 0, "insert_text": "\x07bell"}, "looks binary"),
    ({"command": "insert", "path": P, "insert_line": 4, "insert_text": "x"},
     "Invalid `insert_line` parameter: 4. It should be within the range [0, 3]."),
    ({"command": "insert", "path": P, "insert_line": True, "insert_text": "x"}, "It should be an integer."),
    ({"command": "str_replace", "path": P, "old_str": "", "new_str": "x"}, "old_str must not be empty"),
    ({"command": "str_replace", "path": P, "old_str": "a", "new_str": "x"}, "Multiple occurrences"),
    ({"command": "view", "path": P, "view_range": [0, 2]},
     "Invalid `view_range`: [0, 2]. Its first element `0` should be within the range of lines of the file: [1, 4]"),
    ({"command": "view", "path": P, "view_range": [5, -1]}, "Its first element `5`"),
    ({"command": "view", "path": P, "view_range": [2, 9]},
     "Invalid `view_range`: [2, 9]. Its second element `9` should be smaller than the number of lines in the "
     "file: `4`"),
    ({"command": "view", "path": P, "view_range": [3, 1]},
     "Its second element `1` should be larger or equal than its first `3`"),
    ({"command": "view", "path": P, "view_range": [1]}, "Invalid `view_range`. It should be a list of two integers."),
    ({"command": "view", "path": P, "view_range": "1-2"}, "It should be a list of two integers."),
    ({"command": "view", "path": P, "view_range": [1, 2.5]}, "It should be a list of two integers."),
]


@pytest.mark.parametrize(("input", "expected"), BAD_TOOL_INPUTS, ids=[f"{i['command']}-{n}" for n, (i, _) in
                                                                     enumerate(BAD_TOOL_INPUTS)])
def test_bad_input_is_an_error_result_and_changes_nothing(memory: Memory, input: dict[str, Any],
                                                          expected: str) -> None:
    tool = MemoryTool(memory, T)
    assert not tool.run({"command": "create", "path": P, "file_text": "alpha\nbeta\ngamma\n"}).is_error
    before = state(memory)
    result = tool.run(input)
    assert result.is_error and expected in result.text, result.text
    assert state(memory) == before


def test_library_errors_are_sgam_errors_naming_the_field(memory: Memory) -> None:
    docs = memory.documents
    with pytest.raises(ValidationError, match="content"):
        docs.create(T, P, b"bytes")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="expected_revision"):
        docs.write(T, P, "x", expected_revision=-1)
    with pytest.raises(ValidationError, match="tenant"):
        docs.create("", P, "x")
    with pytest.raises(NotFoundError):
        docs.history(T, "/memories/none.md")
    with pytest.raises(ValidationError, match="revision"):
        docs.revision(T, P, 0)
    assert docs.all(T) == []
