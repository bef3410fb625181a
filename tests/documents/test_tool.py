"""The memory-tool contract: commands, parameters and result texts of memory_20250818,
on both backends."""

from __future__ import annotations

from typing import Any

import pytest

from sgam import Memory
from sgam.tools import MemoryTool

T = "acme"


@pytest.fixture
def tool(memory: Memory) -> MemoryTool:
    return MemoryTool(memory, T)


def ok(tool: MemoryTool, **input: Any) -> str:
    result = tool.run(input)
    assert not result.is_error, result.text
    return result.text


def err(tool: MemoryTool, **input: Any) -> str:
    result = tool.run(input)
    assert result.is_error, result.text
    return result.text


def test_view_of_an_empty_root_lists_only_the_root(tool: MemoryTool) -> None:
    assert ok(tool, command="view", path="/memories") == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n"
        "0B\t/memories"
    )


def test_create_then_view_numbers_lines_like_the_reference(tool: MemoryTool) -> None:
    assert ok(tool, command="create", path="/memories/notes.md", file_text="alpha\nbeta\n") == (
        "File created successfully at: /memories/notes.md")
    assert ok(tool, command="view", path="/memories/notes.md") == (
        "Here's the content of /memories/notes.md with line numbers:\n"
        "     1\talpha\n     2\tbeta\n     3\t"
    )
    assert ok(tool, command="view", path="/memories/notes.md", view_range=[2, -1]) == (
        "Here's the content of /memories/notes.md with line numbers:\n     2\tbeta\n     3\t"
    )
    assert ok(tool, command="view", path="/memories/notes.md", view_range=[1, 1]) == (
        "Here's the content of /memories/notes.md with line numbers:\n     1\talpha"
    )


def test_create_never_overwrites(tool: MemoryTool, memory: Memory) -> None:
    ok(tool, command="create", path="/memories/a.md", file_text="first")
    assert err(tool, command="create", path="/memories/a.md", file_text="second") == (
        "File /memories/a.md already exists")
    assert memory.documents.read(T, "/memories/a.md").content == "first"
    ok(tool, command="create", path="/memories/dir/b.md", file_text="x")
    assert err(tool, command="create", path="/memories/dir", file_text="y") == "File /memories/dir already exists"
    assert err(tool, command="create", path="/memories/a.md/c.md", file_text="y") == (
        "Cannot create /memories/a.md/c.md: /memories/a.md is a file")


def test_directory_listing_is_two_levels_deep_sorted_and_without_hidden_entries(tool: MemoryTool) -> None:
    for path, text in [("/memories/b.md", "12345"), ("/memories/a/x.md", "x" * 2048),
                       ("/memories/a/deep/deeper/z.md", "zz"), ("/memories/.hidden/h.md", "h"),
                       ("/memories/a/.h.md", "h"), ("/memories/c/d.md", "")]:
        ok(tool, command="create", path=path, file_text=text)
    assert ok(tool, command="view", path="/memories") == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n"
        "2.0K\t/memories\n"
        "2.0K\t/memories/a/\n"
        "2B\t/memories/a/deep/\n"
        "2K\t/memories/a/x.md\n"
        "5B\t/memories/b.md\n"
        "0B\t/memories/c/\n"
        "0B\t/memories/c/d.md"
    )
    assert ok(tool, command="view", path="/memories/a/") == (
        "Here're the files and directories up to 2 levels deep in /memories/a, excluding hidden items:\n"
        "2.0K\t/memories/a\n"
        "2B\t/memories/a/deep/\n"
        "2B\t/memories/a/deep/deeper/\n"
        "2K\t/memories/a/x.md"
    )
    assert err(tool, command="view", path="/memories/a", view_range=[1, 2]) == (
        "The `view_range` parameter is not allowed when `path` points to a directory.")


def test_str_replace_must_match_exactly_once(tool: MemoryTool, memory: Memory) -> None:
    ok(tool, command="create", path="/memories/n.md", file_text="one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
    assert ok(tool, command="str_replace", path="/memories/n.md", old_str="four", new_str="FOUR") == (
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
        "     2\ttwo\n     3\tthree\n     4\tFOUR\n     5\tfive\n     6\tsix"
    )
    assert err(tool, command="str_replace", path="/memories/n.md", old_str="nine", new_str="x") == (
        "No replacement was performed, old_str `nine` did not appear verbatim in /memories/n.md.")
    assert err(tool, command="str_replace", path="/memories/n.md", old_str="e\n", new_str="x") == (
        "No replacement was performed. Multiple occurrences of old_str `e\n` in lines: 1, 3, 5. "
        "Please ensure it is unique")
    assert err(tool, command="str_replace", path="/memories/n.md", old_str="", new_str="x") == (
        "No replacement was performed, old_str must not be empty.")
    assert err(tool, command="str_replace", path="/memories/missing.md", old_str="a", new_str="b") == (
        "The path /memories/missing.md does not exist. Please provide a valid path.")
    ok(tool, command="create", path="/memories/d/x.md", file_text="a")
    assert err(tool, command="str_replace", path="/memories/d", old_str="a", new_str="b") == (
        "The path /memories/d is not a file.")
    assert len(memory.documents.history(T, "/memories/n.md")) == 2


def test_insert_at_any_line_from_zero_to_the_end(tool: MemoryTool, memory: Memory) -> None:
    ok(tool, command="create", path="/memories/l.md", file_text="a\nb")
    assert ok(tool, command="insert", path="/memories/l.md", insert_line=0, insert_text="top\n") == (
        "The file /memories/l.md has been edited.")
    ok(tool, command="insert", path="/memories/l.md", insert_line=3, insert_text="end")
    ok(tool, command="insert", path="/memories/l.md", insert_line=1, insert_text="x\ny")
    assert memory.documents.read(T, "/memories/l.md").content == "top\nx\ny\na\nb\nend\n"
    assert err(tool, command="insert", path="/memories/l.md", insert_line=7, insert_text="z") == (
        "Invalid `insert_line` parameter: 7. It should be within the range [0, 6].")
    assert err(tool, command="insert", path="/memories/l.md", insert_line=-1, insert_text="z") == (
        "Invalid `insert_line` parameter: -1. It should be within the range [0, 6].")
    assert err(tool, command="insert", path="/memories/nope.md", insert_line=0, insert_text="z") == (
        "The path /memories/nope.md does not exist. Please provide a valid path.")


def test_delete_a_file_or_a_folder_but_never_the_root(tool: MemoryTool, memory: Memory) -> None:
    ok(tool, command="create", path="/memories/f/a.md", file_text="a")
    ok(tool, command="create", path="/memories/f/g/b.md", file_text="b")
    ok(tool, command="create", path="/memories/keep.md", file_text="k")
    assert err(tool, command="delete", path="/memories") == "Cannot delete the /memories directory itself"
    assert err(tool, command="delete", path="/memories/") == "Cannot delete the /memories directory itself"
    assert ok(tool, command="delete", path="/memories/f") == "Successfully deleted /memories/f"
    assert err(tool, command="delete", path="/memories/f") == "The path /memories/f does not exist"
    assert [d.path for d in memory.documents.all(T)] == ["/memories/keep.md"]
    assert ok(tool, command="delete", path="/memories/keep.md") == "Successfully deleted /memories/keep.md"
    assert err(tool, command="view", path="/memories/keep.md") == (
        "The path /memories/keep.md does not exist. Please provide a valid path.")


def test_rename_files_and_folders(tool: MemoryTool, memory: Memory) -> None:
    ok(tool, command="create", path="/memories/a.md", file_text="a")
    ok(tool, command="create", path="/memories/d/x.md", file_text="x")
    ok(tool, command="create", path="/memories/d/e/y.md", file_text="y")
    assert ok(tool, command="rename", old_path="/memories/a.md", new_path="/memories/n/b.md") == (
        "Successfully renamed /memories/a.md to /memories/n/b.md")
    assert ok(tool, command="rename", old_path="/memories/d", new_path="/memories/z") == (
        "Successfully renamed /memories/d to /memories/z")
    assert [d.path for d in memory.documents.all(T)] == ["/memories/n/b.md", "/memories/z/e/y.md", "/memories/z/x.md"]
    assert err(tool, command="rename", old_path="/memories/z/x.md", new_path="/memories/n/b.md") == (
        "The destination /memories/n/b.md already exists")
    assert err(tool, command="rename", old_path="/memories/z", new_path="/memories/n") == (
        "The destination /memories/n already exists")
    assert err(tool, command="rename", old_path="/memories/q", new_path="/memories/r") == (
        "The path /memories/q does not exist")
    assert err(tool, command="rename", old_path="/memories", new_path="/memories/r") == (
        "Cannot rename the /memories directory itself")
    assert err(tool, command="rename", old_path="/memories/z", new_path="/memories/z/inner") == (
        "Cannot move /memories/z into itself")
    assert err(tool, command="rename", old_path="/memories/z/x.md", new_path="/memories/n/b.md/c") == (
        "Cannot move /memories/z/x.md to /memories/n/b.md/c: /memories/n/b.md is a file")
    history = memory.documents.history(T, "/memories/n/b.md")
    assert [(r.op, r.path) for r in history] == [("create", "/memories/a.md"), ("rename", "/memories/n/b.md")]


@pytest.mark.parametrize(("input", "text"), [
    ({"command": "undo_edit", "path": "/memories"},
     "Unknown command: 'undo_edit'. Use one of: view, create, str_replace, insert, delete, rename."),
    ({"path": "/memories"}, "Unknown command: None. Use one of: view, create, str_replace, insert, delete, rename."),
    ({"command": "create", "path": "/memories/x"}, "Missing required parameter `file_text` for command `create`."),
    ({"command": "view"}, "Missing required parameter `path` for command `view`."),
    ({"command": "insert", "path": "/memories/x", "insert_line": "1", "insert_text": "a"},
     "Invalid `insert_line` parameter: '1'. It should be an integer."),
    ({"command": "create", "path": 5, "file_text": "a"},
     "Invalid `path` parameter: it should be a string, not int."),
    ({"command": "view", "path": "/etc/passwd"}, "Path must start with /memories, got: /etc/passwd"),
])
def test_malformed_input_is_an_error_result(tool: MemoryTool, input: dict[str, Any], text: str) -> None:
    assert err(tool, **input) == text


def test_a_non_mapping_input_is_an_error_result(tool: MemoryTool) -> None:
    result = tool.run(["view"])  # type: ignore[arg-type]
    assert result.is_error and result.text == "The tool input must be an object with a `command` field."


def test_revisions_name_the_tool_the_episode_and_the_call(memory: Memory) -> None:
    tool = MemoryTool(memory, T, author="agent:planner", episode="ep-7")
    assert not tool.run({"command": "create", "path": "/memories/p.md", "file_text": "p"}, call="toolu_1").is_error
    (revision,) = memory.documents.history(T, "/memories/p.md")
    assert (revision.author, revision.episode, revision.call, revision.op) == ("agent:planner", "ep-7", "toolu_1",
                                                                              "create")


def test_tenants_do_not_see_each_others_documents(memory: Memory) -> None:
    ok(MemoryTool(memory, "one"), command="create", path="/memories/secret.md", file_text="s")
    other = MemoryTool(memory, "two")
    assert err(other, command="view", path="/memories/secret.md") == (
        "The path /memories/secret.md does not exist. Please provide a valid path.")
    ok(other, command="create", path="/memories/secret.md", file_text="mine")
    assert memory.documents.read("one", "/memories/secret.md").content == "s"
