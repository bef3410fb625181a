"""Property: whatever text ``check_path`` accepts is canonical and stays under /memories."""

from __future__ import annotations

import posixpath
import re
import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from sgam.documents import PathError, check_path

_PIECES = st.sampled_from(["/", ".", "..", "memories", "/memories", "a", "%2e", "%2f", "\\", "\x00", " ", "\u2024",
                           "\uff0f", "\u2215", "\u202e", "~", ":", "x.md", "\u00e9", "e\u0301"])
_PATHS = st.one_of(
    st.text(max_size=40),
    st.lists(_PIECES, max_size=12).map("".join),
    st.lists(_PIECES, max_size=10).map(lambda parts: "/memories/" + "".join(parts)),
)


@settings(max_examples=400, deadline=None)
@given(_PATHS)
def test_an_accepted_path_is_canonical_and_contained(raw: str) -> None:
    try:
        path = check_path(raw)
    except PathError:
        return
    assert path == "/memories" or path.startswith("/memories/")
    assert posixpath.normpath(path) == path
    assert ".." not in path.split("/") and "." not in path.split("/")
    assert "\\" not in path and "\x00" not in path and re.search("%[0-9A-Fa-f]{2}", path) is None
    assert unicodedata.normalize("NFKC", path) == path
    assert check_path(path) == path
