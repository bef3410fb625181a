"""Ledger commands turn sgam errors into one-line messages and the documented exit status."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sgam.cli import app


@pytest.fixture
def sgam(store_url: str) -> list[str]:
    """The common tail of every call: a fresh store on each backend and tenant acme."""
    db = ["--db", store_url, "-t", "acme"]
    assert run("episode", *db, "e1", "2026-06-01T00:00:00Z", "hello")[0] == 0
    assert run("declare", *db, "age", "integer")[0] == 0
    assert run("write", *db, "mira", "city", "Paris", "--valid-from", "2026-06-01T00:00:00Z", "--source", "e1")[0] == 0
    return db


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("args", "code", "kind"), [
    (["write", "mira", "city", "Rome", "--valid-from", "2026-06-01T00:00:00Z", "--source", "e1"], 5, "conflict"),
    (["write", "mira", "city", "Rome", "--valid-from", "2026-06-01T00:00:00", "--source", "e1"], 3, "validation"),
    (["write", "mira", "city", "Rome", "--valid-from", "2026-06-02T00:00:00Z", "--source", "e9"], 4, "not_found"),
    (["retract", "mira", "city", "--at", "2026-06-01T00:00:00Z", "--source", "e1"], 4, "not_found"),
    (["forget", "--episode", "e9"], 4, "not_found"),
])
def test_exit_status_by_error_kind(sgam: list[str], args: list[str], code: int, kind: str) -> None:
    status, _, err = run(args[0], *sgam, *args[1:])
    assert status == code, err
    assert err.startswith(f"error ({kind}): ") and err.count("\n") == 1


def test_json_error_shape(sgam: list[str]) -> None:
    status, out, _ = run("write", *sgam, "mira", "city", "Rome", "--valid-from", "2026-06-01T00:00:00Z",
                         "--source", "e1", "--json")
    assert status == 5
    error = json.loads(out)["error"]
    assert error["kind"] == "conflict" and error["field"] == "valid_from"


@pytest.mark.parametrize("value", ["[/bold]", "[red]x[/red]", "[link=http://x]y"])
def test_values_that_look_like_markup_are_printed_literally(sgam: list[str], value: str) -> None:
    """A user's value is data: it must not be read as console markup (which crashed)."""
    status, _, err = run("write", *sgam, "mira", "age", value, "--valid-from", "2026-06-01T00:00:00Z",
                         "--source", "e1")
    assert status == 3
    assert f"(got {value!r})" in err
