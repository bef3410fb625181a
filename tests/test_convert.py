"""Storage rows become the public records exactly as their constructors would make them."""

from __future__ import annotations

from dataclasses import fields

from sgam._convert import to_assertion
from sgam._model import Assertion
from sgam._rules import OpKind, Version
from sgam._time import from_micros


def test_an_assertion_is_built_field_by_field_as_its_constructor_builds_it() -> None:
    version = Version(7, "mira", "city\x1fmarketing", '{"name":"Oslo"}', 1_600_000_000_000_001, 1_700_000_000_000_002,
                      1_650_000_000_000_003, 1_750_000_000_000_004, "e1", "profile", 0.5, 3, 6, OpKind.CORRECT, "e2", 9)
    made = to_assertion("acme", version)
    expected = Assertion(
        id=7, tenant="acme", subject="mira", attribute="city", value={"name": "Oslo"}, memory_type="profile",
        valid_from=from_micros(1_600_000_000_000_001), valid_to=from_micros(1_700_000_000_000_002),
        recorded_at=from_micros(1_650_000_000_000_003), superseded_at=from_micros(1_750_000_000_000_004),
        source="e1", confidence=0.5, schema_version=3, supersedes=6, origin="correct", closed_by="e2",
        purpose="marketing",
    )
    assert made == expected
    assert {f.name: getattr(made, f.name) for f in fields(Assertion)} == {
        f.name: getattr(expected, f.name) for f in fields(Assertion)}
