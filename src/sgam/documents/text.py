"""Document text: what may be stored, how it splits into lines, and into search chunks."""

from __future__ import annotations

import re

from .._core.errors import ValidationError
from ..store import Chunk
from ._checks import tool_error

MAX_DOCUMENT_BYTES = 1024 * 1024
MAX_LINES = 999_999
CHUNK_LINES = 40
CHUNK_CHARS = 2000

# Text keeps tabs, newlines, carriage and form feeds; any other C0 control (NUL above
# all) or DEL marks binary content, which a memory document must not be.
_BINARY = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def check_content(value: object, field: str) -> str:
    """Text of bounded size, valid Unicode, not binary; nothing else reaches a revision."""
    if not isinstance(value, str):
        raise ValidationError(field, value, "must be a string")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValidationError(field, "<text>", "must be valid UTF-8 text (it has lone surrogates)") from None
    if size > MAX_DOCUMENT_BYTES:
        raise ValidationError(field, f"<{size} bytes>",
                              f"larger than the {MAX_DOCUMENT_BYTES} bytes a document may hold")
    found = _BINARY.search(value)
    if found:
        raise ValidationError(field, f"<text with U+{ord(found.group()):04X}>",
                              "looks binary (NUL or control characters); documents hold text")
    return value


def decode_file(data: bytes, field: str) -> str:
    """Bytes read from a file, as document text: strict UTF-8 (a BOM is refused too)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(field, f"<{len(data)} bytes>", f"is not valid UTF-8 (byte {exc.start})") from None
    return check_content(text, field)


def view_lines(content: str) -> list[str]:
    """Lines as ``view`` numbers them: split on LF, a trailing newline leaves an empty last line."""
    return content.split("\n")


def edit_lines(content: str) -> list[str]:
    """Lines as ``insert`` counts them: split on LF, without the empty tail of a final newline."""
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def chunks(content: str) -> list[Chunk]:
    """Consecutive passages of at most ``CHUNK_LINES`` lines and about ``CHUNK_CHARS``
    characters, each with its 1-based inclusive line range; blank passages are skipped."""
    lines = edit_lines(content)
    out: list[Chunk] = []
    start = 0
    while start < len(lines):
        end, size = start, 0
        while end < len(lines) and end - start < CHUNK_LINES and (size == 0 or size + len(lines[end]) <= CHUNK_CHARS):
            size += len(lines[end]) + 1
            end += 1
        text = "\n".join(lines[start:end])
        if text.strip():
            out.append(Chunk(start + 1, end, text[: CHUNK_CHARS * 4]))
        start = end
    return out


def replace_once(content: str, old: str, new: str, path: str) -> tuple[str, int]:
    """``content`` with the one occurrence of ``old`` replaced by ``new``, and the line
    (from 0) it starts on; none or several is the memory tool's error, naming the lines."""
    count = content.count(old)
    if count == 0:
        raise tool_error("old_str", old, f"No replacement was performed, old_str `{old}` did not appear "
                          f"verbatim in {path}.")
    if count > 1:
        lines, start = [], 0
        while (pos := content.find(old, start)) != -1:
            lines.append(content[:pos].count("\n") + 1)
            start = pos + 1
        raise tool_error("old_str", old, f"No replacement was performed. Multiple occurrences of old_str "
                          f"`{old}` in lines: {', '.join(map(str, lines))}. Please ensure it is unique")
    line = content[:content.find(old)].count("\n")
    return check_content(content.replace(old, new), "content"), line


def insert_at(content: str, line: int, text: str) -> str:
    """``content`` with ``text`` as lines after line ``line`` (0: at the top), ending in a
    newline; a line outside the text is the memory tool's error."""
    lines = edit_lines(content)
    if line < 0 or line > len(lines):
        raise tool_error("insert_line", line, f"Invalid `insert_line` parameter: {line}. "
                          f"It should be within the range [0, {len(lines)}].")
    lines.insert(line, text.rstrip("\n"))
    updated = "\n".join(lines)
    if not updated.endswith("\n"):
        updated += "\n"
    return check_content(updated, "content")
