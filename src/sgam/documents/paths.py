"""Containment of document paths: exactly ``/memories`` or below ``/memories/``.

A path is checked as text, never resolved against a file system, and refused unless it
is already in its one canonical form. Anything that a later normalisation (URL
decoding, Unicode compatibility folding, Windows separators, trimming of trailing dots
and spaces) could turn into a different path is refused outright, so what is checked is
what is stored and what ``sgam docs export`` writes under its directory.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata

from .._core.errors import ValidationError

ROOT = "/memories"
MAX_PATH_CHARS = 1024
MAX_NAME_BYTES = 255
MAX_DEPTH = 32

_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_PORTABLE_FORBIDDEN = frozenset('\\<>:"|?*')
# Characters that render as a slash or a dot but are neither: a path built with them
# reads like a traversal to a person or a model and may be folded into one by a tool.
_LOOKALIKES = frozenset(
    "\u2215\u2044\u29f8\u29f9\u2571\u2572\u27cb\u27cd\u1735\uff0f\ufe68\uff3c"
    "\u2024\u2025\u2026\ufe52\uff0e\u3002\uff61\u0701\u0702\ua4f8\u06d4\u2e3c\u00b7\u2027\u2219\u22c5"
)
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_WINDOWS_DEVICES = frozenset(
    {"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(10)), *(f"LPT{i}" for i in range(10))}
)


class PathError(ValidationError):
    """A document path outside ``/memories`` or not in canonical form."""

    def __init__(self, field: str, value: object, rule: str) -> None:
        super().__init__(field, value, rule)


def check_path(value: object, field: str = "path") -> str:
    """The canonical form of a memory path (``/memories`` or ``/memories/a/b``), or
    ``PathError`` naming the rule it broke. One trailing slash is accepted and dropped."""
    if not isinstance(value, str):
        raise PathError(field, value, "must be a string")
    if len(value) > MAX_PATH_CHARS:
        raise PathError(field, f"<{len(value)} characters>", f"longer than {MAX_PATH_CHARS} characters")
    _check_characters(value, field)
    path = value[:-1] if value.endswith("/") and value != "/" else value
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise PathError(field, value, f"must be {ROOT} or start with {ROOT}/")
    names = path[len(ROOT) + 1:].split("/") if path != ROOT else []
    if len(names) > MAX_DEPTH:
        raise PathError(field, value, f"deeper than {MAX_DEPTH} levels")
    for name in names:
        _check_name(name, value, field)
    if posixpath.normpath(path) != path:
        raise PathError(field, value, "must be in normal form")
    return path


def _check_characters(value: str, field: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise PathError(field, value, "must be valid Unicode (no lone surrogates)") from None
    for char in value:
        if unicodedata.category(char) in _BAD_CATEGORIES:
            raise PathError(field, value, f"must not contain control or format characters (U+{ord(char):04X})")
        if char in _PORTABLE_FORBIDDEN:
            raise PathError(field, value, f"must not contain {char!r} (backslashes and characters "
                            "that are not portable file names are refused)")
        if char in _LOOKALIKES:
            raise PathError(field, value, f"must not contain U+{ord(char):04X}, which looks like a dot or a slash")
    if _PERCENT_ESCAPE.search(value):
        raise PathError(field, value, "must not contain percent-encoded characters")
    if unicodedata.normalize("NFKC", value) != value:
        raise PathError(field, value, "must be in Unicode NFKC form (compatibility characters are refused)")


def _check_name(name: str, value: str, field: str) -> None:
    if name == "":
        raise PathError(field, value, "must not contain empty segments ('//')")
    if name in (".", ".."):
        raise PathError(field, value, "must not contain '.' or '..' segments")
    if set(name) <= {"."}:
        raise PathError(field, value, "must not contain segments made only of dots")
    if name != name.strip() or name.endswith("."):
        raise PathError(field, value, "names must not start or end with spaces or end with a dot")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise PathError(field, value, f"names must be at most {MAX_NAME_BYTES} bytes")
    if name.split(".", 1)[0].upper() in _WINDOWS_DEVICES:
        raise PathError(field, value, f"{name!r} is a reserved device name on Windows")


def parent(path: str) -> str:
    return path.rsplit("/", 1)[0]


def ancestors(path: str) -> list[str]:
    """Directories strictly between the root and ``path``: ``/memories/a`` for ``/memories/a/b``."""
    out: list[str] = []
    current = parent(path)
    while current != ROOT and current.startswith(ROOT + "/"):
        out.append(current)
        current = parent(current)
    return out


def is_within(path: str, directory: str) -> bool:
    """``path`` is ``directory`` itself or below it."""
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def relative(path: str) -> str:
    """The part below the root: ``a/b.md`` for ``/memories/a/b.md``."""
    return path[len(ROOT) + 1:] if path != ROOT else ""
