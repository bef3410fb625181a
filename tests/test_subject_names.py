"""Subject ids are normalised on every path, and the first spelling is a display name:
kept across later spellings, erased with the subject, learned again after it."""

from __future__ import annotations

import pytest

from sgam import Memory, ValidationError

T1 = "2026-01-01T00:00:00Z"


def test_the_first_spelling_is_the_display_name_until_the_subject_is_forgotten(memory: Memory) -> None:
    memory.add_episode("t", "e1", T1, "Mira Jansen lives in Oslo")
    memory.write("t", "  Mira   Jansen ", "city", "Oslo", T1, "e1")
    memory.write("t", "MIRA JANSEN", "phone", "123", T1, "e1")
    assert memory.display_names("t", ["mira jansen", "nobody"]) == {"mira jansen": "Mira Jansen",
                                                                      "nobody": "nobody"}
    assert [a.subject for a in memory.query("t", subject="Mira Jansen")] == ["mira jansen", "mira jansen"]
    memory.forget_subject("t", "mira jansen")
    assert memory.display_names("t", ["mira jansen"]) == {"mira jansen": "mira jansen"}
    memory.write("t", "MIRA Jansen", "city", "Oslo", T1, "e1")
    assert memory.display_names("t", ["Mira Jansen"]) == {"mira jansen": "MIRA Jansen"}


def test_an_id_empty_or_too_long_once_normalised_is_refused(memory: Memory) -> None:
    memory.add_episode("t", "e1", T1, "x")
    with pytest.raises(ValidationError) as caught:
        memory.write("t", "\u3000", "city", "Oslo", T1, "e1")  # ideographic space: white space only
    assert caught.value.field == "subject"
    with pytest.raises(ValidationError) as caught:
        memory.write("t", "\ufdfa" * 20, "city", "Oslo", T1, "e1")  # NFKC makes each 18 characters
    assert caught.value.field == "subject"
    assert memory.query("t") == []


@pytest.mark.parametrize("subjects", [0, None, "mira", b"mira", {"mira": 1}])
def test_display_names_of_anything_but_a_list_of_ids_is_a_validation_error(memory: Memory, subjects: object) -> None:
    with pytest.raises(ValidationError) as caught:
        memory.display_names("t", subjects)  # type: ignore[arg-type]
    assert caught.value.field == "subjects"


INVISIBLE = ["Mi\u200bra", "Mi\u200dra", "\u200eMira", "Mi\u202era", "Mi\u2066ra\u2069", "Mi\u00adra", "\ufeffMira"]


@pytest.mark.parametrize("subject", INVISIBLE)
def test_an_id_with_an_invisible_format_character_is_refused_everywhere(memory: Memory, subject: str) -> None:
    """``Mi\\u200bra`` would be a subject apart from ``mira`` that looks the same and that
    erasing ``mira`` does not reach: every path that takes a subject refuses it."""
    memory.add_episode("t", "e1", T1, "Mira lives in Oslo")
    memory.write("t", "Mira", "city", "Oslo", T1, "e1")
    attempts = [
        lambda: memory.write("t", subject, "city", "Oslo", T1, "e1"),
        lambda: memory.consent("t", subject, False),
        lambda: memory.alias("t", subject, "mira"),
        lambda: memory.forget_subject("t", subject),
        lambda: memory.get("t", subject, "city"),
    ]
    for attempt in attempts:
        with pytest.raises(ValidationError) as caught:
            attempt()
        assert caught.value.field in {"subject", "name"}, caught.value.field
        assert caught.value.value == subject
    assert [(a.subject, a.value) for a in memory.query("t")] == [("mira", "Oslo")]
