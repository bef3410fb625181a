"""``Memory.preview_forget``: what an erasure would remove, exactly, under any name the
erasure accepts, and nothing changed by looking."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from sgam import Memory, ValidationError
from sgam.cli import app


def _seed(memory: Memory) -> None:
    memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "Team Atlas meets in Oslo. MJ likes tea.")
    memory.add_episode("acme", "e2", "2026-06-02T00:00:00Z", "Atlas moved to Bergen.")
    memory.write("acme", "Atlas", "city", "Oslo", "2026-06-01T00:00:00Z", "e1")
    memory.write("acme", "Atlas", "city", "Bergen", "2026-06-02T00:00:00Z", "e2")
    memory.write("acme", "Mira", "city", "Oslo", "2026-06-01T00:00:00Z", "e1")
    memory.write("acme", "MJ", "drink", "tea", "2026-06-01T00:00:00Z", "e1")
    memory.alias("acme", "MJ", "Mira")


def _state(memory: Memory) -> Any:
    return [(a.subject, a.attribute, a.value, a.valid_from, a.superseded_at)
            for a in memory.query("acme", all_times=True)]


@pytest.mark.parametrize(("kind", "target", "erased_as"), [
    ("subject", "Atlas", "atlas"),      # as every page spells it: the erasure normalises it
    ("subject", "  ATLAS ", "atlas"),
    ("subject", "MJ", "mj"),            # an alias: the subject it means, with its merged keys
    ("subject", "Mira", "mira"),
    ("episode", "e2", "e2"),
])
def test_the_preview_is_what_the_erasure_then_does(memory: Memory, kind: str, target: str, erased_as: str) -> None:
    _seed(memory)
    before = _state(memory)
    preview = memory.preview_forget("acme", **{kind: target})
    assert _state(memory) == before  # looking changes nothing
    assert (preview.kind, preview.target) == (kind, erased_as)
    assert preview.means == {"mj": "mira", "e2": None}.get(erased_as, erased_as)  # the subject a name means
    assert preview.operations > 0 and preview.keys
    held = {(k.subject, k.attribute): k.before for k in preview.keys}
    for (subject, attribute), values in held.items():  # "now" is what each key holds now
        now = [a for a in memory.versions("acme", subject, attribute) if a.superseded_at is None]
        assert [(a.value, a.valid_from, a.valid_to) for a in now] == [(a.value, a.valid_from, a.valid_to)
                                                                       for a in values]
    result = memory.forget_subject("acme", target) if kind == "subject" else memory.forget_episode("acme", target)
    assert (preview.operations, preview.episodes) == (result.operations_removed, result.episodes_removed)
    for change in preview.keys:  # each key holds what the preview said it would
        now = [a for a in memory.versions("acme", change.subject, change.attribute) if a.superseded_at is None]
        assert [(a.value, a.valid_from, a.valid_to) for a in now] == [
            (a.value, a.valid_from, a.valid_to) for a in change.after]
    untouched = {(a.subject, a.attribute) for a in memory.query("acme", all_times=True)} - set(held)
    assert untouched == {key for key in {("atlas", "city"), ("mira", "city"), ("mira", "drink")}
                         if key not in held}  # every other key is as it was


def test_the_preview_of_an_alias_names_every_key_the_erasure_empties(memory: Memory) -> None:
    _seed(memory)
    preview = memory.preview_forget("acme", subject="MJ")
    assert [(k.subject, k.attribute, [a.value for a in k.before], k.after) for k in preview.keys] == [
        ("mira", "city", ["Oslo"], []), ("mira", "drink", ["tea"], [])]


def test_bad_targets_are_refused_by_name(memory: Memory) -> None:
    _seed(memory)
    with pytest.raises(ValidationError) as both:
        memory.preview_forget("acme", subject="atlas", episode="e1")
    assert both.value.field == "target"
    with pytest.raises(ValidationError) as blank:
        memory.preview_forget("acme", subject="  ")
    assert blank.value.field == "subject"


def test_forget_dry_run_shows_the_preview_and_erases_nothing(store_url: str) -> None:
    with Memory(store_url) as memory:
        _seed(memory)
        before = _state(memory)
    runner = CliRunner()
    shown = runner.invoke(app, ["forget", "-t", "acme", "--subject", "Atlas", "--dry-run", "--db", store_url,
                                "--json"])
    assert shown.exit_code == 0, shown.output
    preview = json.loads(shown.stdout)
    assert (preview["target"], preview["operations"], preview["episodes"]) == ("atlas", 2, 0)
    assert [(k["subject"], k["attribute"], [a["value"] for a in k["before"]], k["after"])
            for k in preview["keys"]] == [("atlas", "city", ["Oslo", "Bergen"], [])]
    printed = runner.invoke(app, ["forget", "-t", "acme", "--subject", "Atlas", "--dry-run", "--db", store_url],
                            env={"COLUMNS": "200"})
    assert printed.exit_code == 0, printed.output
    assert "erasing subject atlas would remove 2 recorded operations and 0 episodes; nothing was erased" in (
        " ".join(printed.output.split()))
    assert '"Oslo" [2026-06-01T00:00:00Z → 2026-06-02T00:00:00Z)' in printed.output
    with Memory(store_url) as memory:
        assert _state(memory) == before
    erased = runner.invoke(app, ["forget", "-t", "acme", "--subject", "Atlas", "--db", store_url, "--json"])
    assert json.loads(erased.stdout)["operations_removed"] == 2


def test_forget_dry_run_of_an_alias_names_the_subject_it_means(store_url: str) -> None:
    with Memory(store_url) as memory:
        _seed(memory)
    printed = CliRunner().invoke(app, ["forget", "-t", "acme", "--subject", "MJ", "--dry-run", "--db", store_url],
                                 env={"COLUMNS": "200"})
    assert printed.exit_code == 0, printed.output
    assert "erasing subject mj (a name of mira) would remove 2 recorded operations" in " ".join(printed.output.split())
