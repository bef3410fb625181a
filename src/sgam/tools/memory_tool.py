"""The memory tool (``memory_20250818``) over a tenant's documents.

``MemoryTool.run`` takes the tool's input object and returns the text the model sees,
with ``is_error`` set for errors: it never raises for bad input or a refused change.
Result and error texts are those of Anthropic's reference implementation (the SDK's
local-filesystem memory tool); where sgam is stricter than it (``view_range`` bounds,
paths, binary or oversized text) the error texts are documented in docs/documents.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._core.errors import SgamError
from .._core.values import check_tenant
from ..documents._checks import Provenance
from ..documents.paths import ROOT, PathError
from ..documents.text import MAX_LINES, view_lines

if TYPE_CHECKING:
    from ..memory.facade import Memory

LINE_NUMBER_WIDTH = 6
COMMANDS: dict[str, tuple[str, ...]] = {
    "view": ("path",),
    "create": ("path", "file_text"),
    "str_replace": ("path", "old_str", "new_str"),
    "insert": ("path", "insert_line", "insert_text"),
    "delete": ("path",),
    "rename": ("old_path", "new_path"),
}
_INTEGERS = frozenset({"insert_line"})


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What goes back to the model as the ``tool_result``: its text and error flag."""

    text: str
    is_error: bool = False


class _Refused(Exception):
    """Internal: an input error found before any store call; its text is the result."""


def format_size(size: int) -> str:
    """Sizes as the reference listing prints them: 0B, 512B, 1.5K, 2M."""
    if size == 0:
        return "0B"
    units = ["B", "K", "M", "G"]
    index = min((size.bit_length() - 1) // 10, len(units) - 1)
    scaled = size / (1024**index)
    return f"{int(scaled)}{units[index]}" if scaled == int(scaled) else f"{scaled:.1f}{units[index]}"


def numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{str(first + offset).rjust(LINE_NUMBER_WIDTH)}\t{line}" for offset, line in enumerate(lines))


class MemoryTool:
    """The six memory-tool commands on ``tenant``'s documents in ``memory``.

    Revisions it writes name ``author`` (default "memory-tool") and, when given, the
    ``episode`` the conversation belongs to and the tool ``call`` id passed to ``run``."""

    def __init__(self, memory: Memory, tenant: str, *, author: str = "memory-tool", episode: str | None = None) -> None:
        self.documents = memory.documents
        self.tenant = check_tenant(tenant)
        self.author = author
        self.episode = episode

    def run(self, input: Mapping[str, Any], *, call: str | None = None) -> ToolResult:
        """Execute one command; the result text is what the model should see."""
        try:
            command, args = _parse(input)
            by = Provenance(self.author, self.episode, call)
            text = getattr(self, f"_{command}")(args, by)
        except _Refused as exc:
            return ToolResult(str(exc), True)
        except PathError as exc:
            return ToolResult(_path_error(exc), True)
        except SgamError as exc:
            return ToolResult(exc.message, True)
        return ToolResult(text)

    def _view(self, args: Mapping[str, Any], by: Provenance) -> str:
        path, view_range = args["path"], args.get("view_range")
        docs = self.documents
        document = None if path.rstrip("/") == ROOT else docs.get(self.tenant, path)
        if document is None:
            if view_range is not None and docs.is_directory(self.tenant, path):
                raise _Refused("The `view_range` parameter is not allowed when `path` points to a directory.")
            entries = docs.listing(self.tenant, path)
            shown = path.rstrip("/") or path
            lines = [f"{format_size(sum(e.size for e in entries if e.path.count('/') == shown.count('/') + 1))}"
                     f"\t{shown}"]
            lines += [f"{format_size(e.size)}\t{e.path}{'/' if e.is_dir else ''}" for e in entries]
            return (f"Here're the files and directories up to 2 levels deep in {shown}, excluding hidden items:\n"
                    + "\n".join(lines))
        lines = view_lines(document.content)
        if len(lines) > MAX_LINES:
            raise _Refused(f"File {document.path} exceeds maximum line limit of 999,999 lines.")
        first, last = _range(view_range, len(lines))
        return f"Here's the content of {path} with line numbers:\n" + numbered(lines[first - 1:last], first)

    def _create(self, args: Mapping[str, Any], by: Provenance) -> str:
        self.documents.create(self.tenant, args["path"], args["file_text"], by=by)
        return f"File created successfully at: {args['path']}"

    def _str_replace(self, args: Mapping[str, Any], by: Provenance) -> str:
        edit = self.documents.str_replace(self.tenant, args["path"], args["old_str"], args["new_str"], by=by)
        lines = edit.document.content.split("\n")
        start, end = max(0, edit.line - 2), min(len(lines), edit.line + 3)
        return ("The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
                + numbered(lines[start:end], start + 1))

    def _insert(self, args: Mapping[str, Any], by: Provenance) -> str:
        self.documents.insert(self.tenant, args["path"], args["insert_line"], args["insert_text"], by=by)
        return f"The file {args['path']} has been edited."

    def _delete(self, args: Mapping[str, Any], by: Provenance) -> str:
        self.documents.delete(self.tenant, args["path"], by=by)
        return f"Successfully deleted {args['path']}"

    def _rename(self, args: Mapping[str, Any], by: Provenance) -> str:
        self.documents.rename(self.tenant, args["old_path"], args["new_path"], by=by)
        return f"Successfully renamed {args['old_path']} to {args['new_path']}"


def _parse(input: object) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(input, Mapping):
        raise _Refused("The tool input must be an object with a `command` field.")
    command = input.get("command")
    if not isinstance(command, str) or command not in COMMANDS:
        raise _Refused(f"Unknown command: {command!r}. Use one of: {', '.join(COMMANDS)}.")
    for name in COMMANDS[command]:
        if name not in input or input[name] is None:
            raise _Refused(f"Missing required parameter `{name}` for command `{command}`.")
        value = input[name]
        if name in _INTEGERS:
            if isinstance(value, bool) or not isinstance(value, int):
                raise _Refused(f"Invalid `{name}` parameter: {value!r}. It should be an integer.")
        elif not isinstance(value, str):
            raise _Refused(f"Invalid `{name}` parameter: it should be a string, not {type(value).__name__}.")
    return command, input


def _range(view_range: object, count: int) -> tuple[int, int]:
    """The 1-based inclusive lines to show; ``[start, -1]`` runs to the end."""
    if view_range is None:
        return 1, count
    if (not isinstance(view_range, (list, tuple)) or len(view_range) != 2
            or any(isinstance(n, bool) or not isinstance(n, int) for n in view_range)):
        raise _Refused("Invalid `view_range`. It should be a list of two integers.")
    first, last = view_range
    shown = list(view_range)
    if not 1 <= first <= count:
        raise _Refused(f"Invalid `view_range`: {shown}. Its first element `{first}` should be within the range of "
                       f"lines of the file: {[1, count]}")
    if last == -1:
        return first, count
    if last > count:
        raise _Refused(f"Invalid `view_range`: {shown}. Its second element `{last}` should be smaller than the "
                       f"number of lines in the file: `{count}`")
    if last < first:
        raise _Refused(f"Invalid `view_range`: {shown}. Its second element `{last}` should be larger or equal "
                       f"than its first `{first}`")
    return first, last


def _path_error(exc: PathError) -> str:
    value = exc.value if isinstance(exc.value, str) else repr(exc.value)
    shown = value if value.isprintable() else repr(value)
    if not value.startswith(ROOT):
        return f"Path must start with /memories, got: {shown}"
    return f"Path {shown} would escape /memories directory or is not allowed: {exc.rule}"
