"""What the command line reads: JSON-or-word values, and long text from stdin or a file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .._core.errors import ValidationError

_JSON_OPENERS = ("[", "{", '"')


def parse_value(text: str, field: str = "value", *, string: bool = False) -> Any:
    """JSON when it is JSON; a bare word (``Paris``, ``2026-07-15``) is that string. So
    ``12345`` is a number and ``01234`` (JSON numbers have no leading zero) a string;
    ``string`` (``--string``) takes the text as it is typed, whatever it reads as.

    Text that opens like JSON (``[``, ``{``, ``"``) but is not valid JSON is refused: read
    as a string it would store ``"[1,2"`` where ``[1, 2]`` was meant."""
    if string:
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if text.lstrip().startswith(_JSON_OPENERS):
            raise ValidationError(
                field, text,
                f"looks like JSON but is not valid JSON ({exc.msg} at character {exc.pos}); fix it, or to "
                f"store it as text give it as a JSON string: '{json.dumps(text, ensure_ascii=False)}'",
            ) from None
        return text
    except RecursionError:
        raise ValidationError(field, "<nested value>", "is nested too deeply") from None


def read_text(argument: str, field: str = "text") -> str:
    """``-`` reads standard input, ``@PATH`` reads a UTF-8 file, ``@@...`` is text that
    starts with a literal ``@``; anything else is the text itself."""
    if argument == "-":
        return sys.stdin.read()
    if argument.startswith("@@"):
        return argument[1:]
    if argument.startswith("@"):
        path = Path(argument[1:])
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValidationError(
                field, argument,
                f"@PATH reads the text from a file, and {path} cannot be read ({exc.__class__.__name__}: "
                f"{getattr(exc, 'strerror', None) or exc}); to give text starting with @, write @@",
            ) from None
    return argument


TEXT_HELP = "The raw text; - reads it from standard input, @PATH from a file (@@ for a literal @)."
