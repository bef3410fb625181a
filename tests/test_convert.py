"""Storage rows become the public records exactly as their constructors would make them."""

from __future__ import annotations

from dataclasses import fields

from sgam._core.model import Assertion
from sgam._core.rules import OpKind, Version
from sgam._core.time import from_micros
from sgam.ledger.records import to_assertion, to_assertions


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


def test_an_answer_of_many_versions_converts_each_as_one_would() -> None:
    """``to_assertions`` shares the split attribute and converted instants of one answer
    (a set's members, a page): each assertion is still exactly its own."""
    members = [Version(i, "team 7", f'members\x1fhr\x1e"{who}"', f'"{who}"', 1_600_000_000_000_000 + i % 2,
                       None if i else 1_700_000_000_000_000, 1_650_000_000_000_000, None, f"e{i}", "fact", 1.0, 1,
                       None, OpKind.WRITE, None, i) for i, who in enumerate(("kari", "mira", "ola"))]
    plain = Version(9, "mira", "city", '"Oslo"', 1_600_000_000_000_000, None, 1_650_000_000_000_000, None, "e9",
                    "fact", 1.0, 1, None, OpKind.WRITE, None, 9)
    made = to_assertions("acme", [*members, plain])
    assert made == [to_assertion("acme", version) for version in [*members, plain]]
    assert [(a.attribute, a.purpose, a.value) for a in made] == [
        ("members", "hr", "kari"), ("members", "hr", "mira"), ("members", "hr", "ola"), ("city", None, "Oslo")]
