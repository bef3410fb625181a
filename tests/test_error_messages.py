"""Refusals name the key and the instant, and say what to do instead."""

from __future__ import annotations

import pytest

from sgam import ConflictError, Memory, NotFoundError

START = "2026-06-01T00:00:00Z"
SHOWN = "2026-06-01T00:00:00.000000Z"


@pytest.fixture
def paris(memory: Memory) -> Memory:
    memory.add_episode("acme", "e1", START, "Mira lives in Paris.")
    memory.write("acme", "mira", "city", "Paris", START, "e1")
    return memory


def test_a_retract_at_the_start_names_key_instant_and_the_rule(paris: Memory) -> None:
    with pytest.raises(NotFoundError) as caught:
        paris.retract("acme", "mira", "city", START, "e1")
    message = caught.value.message
    assert f"no assertion of mira.city holds at {SHOWN}" in message
    assert 'value "Paris"' in message and "must come after its start" in message


def test_a_retract_where_nothing_holds_names_key_and_instant(paris: Memory) -> None:
    with pytest.raises(NotFoundError) as caught:
        paris.retract("acme", "mira", "city", "2026-05-01T00:00:00Z", "e1")
    assert caught.value.message == "no assertion of mira.city holds at 2026-05-01T00:00:00.000000Z"


def test_a_conflict_names_the_key_the_instant_and_the_value(paris: Memory) -> None:
    with pytest.raises(ConflictError) as caught:
        paris.write("acme", "mira", "city", "Rome", START, "e1")
    assert caught.value.message.startswith(
        f'mira.city already has an assertion starting at {SHOWN} with value "Paris"; correct it')


def test_a_correct_off_the_start_names_where_the_assertion_starts(paris: Memory) -> None:
    with pytest.raises(NotFoundError) as caught:
        paris.correct("acme", "mira", "city", "2026-06-02T00:00:00Z", "Rome", "e1")
    assert caught.value.message == (
        f"no assertion of mira.city starts at 2026-06-02T00:00:00.000000Z; the one holding then starts at {SHOWN}")
