"""Containment: a corpus of hostile paths, each refused before anything is stored."""

from __future__ import annotations

import pytest

from sgam import Memory
from sgam.documents import PathError, check_path
from sgam.documents.paths import MAX_DEPTH, MAX_NAME_BYTES, MAX_PATH_CHARS
from sgam.tools import MemoryTool

_TRAVERSALS = [
    "..", "../", "/..", "/../etc/passwd", "/memories/..", "/memories/../", "/memories/../etc/passwd",
    "/memories/../../etc/shadow", "/memories/a/../../etc", "/memories/a/../b", "/memories/./a", "/memories/.",
    "/memories/a/./b", "/memories/a/..", "/memories/a/b/../../..", "/memories/...", "/memories/..../x",
    "/memories/a/.../b", "/memories//a", "/memories///", "/memories/a//b", "//memories/a", "/memories/a/",
]
_OUTSIDE = [
    "", "/", "memories", "memories/a", "./memories/a", "/memoriesX", "/memories-x/a", "/memories.bak/a",
    "/memories_/a", "/Memories/a", "/MEMORIES/a", "/memory/a", "/etc/passwd", "/tmp/x", "~/memories/a",
    "/ memories/a", " /memories/a", "file:///memories/a", "C:/memories/a", "/home/user/.ssh/id_rsa",
    "\\memories\\a", "/proc/self/environ", "/dev/null", "/var/lib/sgam/memories/a",
]
_ENCODED = [
    "/memories/%2e%2e/etc", "/memories/%2E%2E/etc", "/memories/%2e%2e%2fetc", "/memories/..%2fetc",
    "/memories/%2fetc", "/memories/a%2F..%2F..%2Fetc", "/memories/%252e%252e/etc", "/memories/%5c..%5cetc",
    "/memories/..%5c..%5cetc", "/memories/%c0%ae%c0%ae/etc", "/memories/%e0%80%ae%e0%80%ae/etc",
    "/memories/%00", "/memories/a%00.md", "/memories/%25u002e%25u002e/x",
    "%2fmemories%2fa", "/memories/%2E/x",
]
_BACKSLASH_AND_PORTABILITY = [
    "/memories\\..\\etc", "/memories/..\\..\\etc", "/memories/a\\b", "/memories\\a", "/memories/a\\",
    "/memories/c:", "/memories/C:\\Windows", "/memories/a:stream", "/memories/file.md::$DATA",
    "/memories/a|b", "/memories/a>b", "/memories/a<b", "/memories/a*b", "/memories/a?b", '/memories/a"b',
    "/memories/CON", "/memories/nul.md", "/memories/com1.txt", "/memories/LPT9", "/memories/aux",
]
_CONTROL = [
    "/memories/a\x00", "/memories/\x00../etc", "/memories/a\x00/../../etc", "/memories/a\nb", "/memories/a\rb",
    "/memories/a\tb", "/memories/\x1b[31m", "/memories/a\x7f", "/memories/a\u0085b", "/memories/a\u2028b",
    "/memories/a\u2029b", "/memories/\u202egpj.exe", "/memories/a\u200bb", "/memories/\ufeffa", "/memories/a\u200d",
    "/memories/\ud800", "/memories/a\udfff.md", "/memories/\ue000", "/memories/\U000e0001tag",
]
_LOOKALIKES = [
    "/memories/\u2024\u2024/etc", "/memories/\uff0e\uff0e/etc", "/memories/\ufe52\ufe52/etc",
    "/memories/\u2025/etc", "/memories/\u2026/etc", "/memories/a\u2215..\u2215etc", "/memories/a\u2044b",
    "/memories/a\uff0fb", "/memories/..\uff0fetc", "/memories/a\u29f8b", "/memories/a\uff3cb", "/memories/a\ufe68b",
    "/memories/\u3002\u3002/x", "/memories/\uff61\uff61/x", "/memories/\u0701\u0701/x", "/memories/a\u2571b",
    "/memories/\u00b7\u00b7/x", "/memories/\u2219\u2219/x", "/memories/\u22c5\u22c5/x", "/memories/\u2027\u2027/x",
    "/memories/\ufb01le", "/memories/\u2460", "/memories/\u00bd", "/memories/\u212b",
    "/memories/\uff41", "/mem\u043eries/a", "/memories\u2215a", "/memories\uff0fa",
]
_NAMES = [
    "/memories/ a", "/memories/a ", "/memories/a.", "/memories/a..", "/memories/dir./x", "/memories/ /x",
    "/memories/" + "a" * (MAX_NAME_BYTES + 1), "/memories/" + "\u00e9" * (MAX_NAME_BYTES // 2 + 1),
    "/memories/" + "/".join(["d"] * (MAX_DEPTH + 1)), "/memories/" + "x/" * 600 + "y",
    "/memories/" + "a" * MAX_PATH_CHARS,
]
HOSTILE = _TRAVERSALS[:-1] + _OUTSIDE + _ENCODED + _BACKSLASH_AND_PORTABILITY + _CONTROL + _LOOKALIKES + _NAMES
# "/memories/a/" (the last traversal entry) is the one that is fine: a trailing slash names a.


def test_the_corpus_is_large_and_distinct() -> None:
    assert len(set(HOSTILE)) == len(HOSTILE) >= 100


@pytest.mark.parametrize("path", HOSTILE, ids=[ascii(p)[:60] for p in HOSTILE])
def test_every_hostile_path_is_refused(path: str) -> None:
    with pytest.raises(PathError):
        check_path(path)


@pytest.mark.parametrize("path", [
    "/memories", "/memories/", "/memories/a", "/memories/a/", "/memories/notes/todo.md", "/memories/.hidden",
    "/memories/a.b.c", "/memories/caf\u00e9.md", "/memories/\u65e5\u672c\u8a9e/\u30ce\u30fc\u30c8.md",
    "/memories/100%.md", "/memories/a b/c d.md", "/memories/con-notes.md", "/memories/" + "a" * MAX_NAME_BYTES,
    "/memories/" + "/".join(["d"] * MAX_DEPTH),
])
def test_ordinary_paths_are_accepted_in_canonical_form(path: str) -> None:
    assert check_path(path) == (path[:-1] if path.endswith("/") else path)


def test_the_tool_refuses_every_hostile_path_and_stores_nothing(memory: Memory) -> None:
    tool = MemoryTool(memory, "acme")
    tool.run({"command": "create", "path": "/memories/keep.md", "file_text": "k"})
    for path in HOSTILE:
        for input in ({"command": "create", "path": path, "file_text": "x"},
                      {"command": "view", "path": path},
                      {"command": "delete", "path": path},
                      {"command": "rename", "old_path": "/memories/keep.md", "new_path": path},
                      {"command": "rename", "old_path": path, "new_path": "/memories/moved.md"}):
            result = tool.run(input)
            assert result.is_error, (input, result.text)
            assert "\x00" not in result.text
    assert [(d.path, d.revision) for d in memory.documents.all("acme")] == [("/memories/keep.md", 1)]


def test_error_texts_name_the_rule() -> None:
    with pytest.raises(PathError, match="'..' segments"):
        check_path("/memories/../x")
    with pytest.raises(PathError, match="must be /memories or start with /memories/"):
        check_path("/memoriesX")
    with pytest.raises(PathError, match="percent-encoded"):
        check_path("/memories/%2e%2e")


@pytest.mark.parametrize("new", ["/memories/x/y", "/memories/" + "n" * 200])
def test_a_directory_rename_whose_deepest_or_longest_target_breaks_a_rule_moves_nothing(
    memory: Memory, new: str,
) -> None:
    docs = memory.documents
    deep = "/memories/d/" + "/".join(["e"] * (MAX_DEPTH - 1))  # one level more below /memories/x/y
    long = "/memories/d/" + "/".join(["l" * 190] * 5)  # past the length limit below /memories/nnn...
    assert len(long) <= MAX_PATH_CHARS < len("/memories/" + "n" * 200 + long[len("/memories/d"):])
    for path in ("/memories/d/short.md", deep, long):
        docs.create("acme", path, "x\n")
    with pytest.raises(PathError, match="deeper than" if new.endswith("y") else "longer than") as refused:
        docs.rename("acme", "/memories/d", new)
    assert refused.value.field == "new_path"
    assert sorted(d.path for d in docs.all("acme")) == sorted(["/memories/d/short.md", deep, long])
