"""The CLI is a skin over the library: each command's JSON and exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sgam.cli import app

runner = CliRunner()


@pytest.fixture()
def db(store_url: str) -> str:
    return store_url


def sgam(db: str, *args: str) -> tuple[int, object]:
    result = runner.invoke(app, [*args, "--db", db, "--json"])
    try:
        payload = json.loads(result.stdout)
    except json.JSONDecodeError:
        payload = result.stdout
    return result.exit_code, payload


def test_write_then_read_at_instants(db: str) -> None:
    assert sgam(db, "episode", "-t", "acme", "e1", "2026-06-01T09:00:00Z", "deadline 2026-07-15")[0] == 0
    assert sgam(db, "episode", "-t", "acme", "e2", "2026-06-03T10:00:00Z", "now 2026-06-30")[0] == 0
    assert sgam(db, "declare", "-t", "acme", "passport_deadline", "date")[0] == 0
    code, first = sgam(db, "write", "-t", "acme", "mira", "passport_deadline", "2026-07-15",
                       "--valid-from", "2026-06-01T09:00:00Z", "--source", "e1")
    assert code == 0 and isinstance(first, dict) and first["effect"] == "created"
    code, second = sgam(db, "write", "-t", "acme", "mira", "passport_deadline", "2026-06-30",
                        "--valid-from", "2026-06-03T10:00:00Z", "--source", "e2")
    assert code == 0 and isinstance(second, dict) and second["effect"] == "superseded"

    code, now = sgam(db, "get", "-t", "acme", "mira", "passport_deadline")
    assert code == 0 and isinstance(now, dict)
    assert (now["value"], now["source"], now["valid_to"]) == ("2026-06-30", "e2", None)
    code, then = sgam(db, "get", "-t", "acme", "mira", "passport_deadline", "--at", "2026-06-02T00:00:00+02:00")
    assert isinstance(then, dict)
    assert (then["value"], then["valid_to"]) == ("2026-07-15", "2026-06-03T10:00:00.000000Z")

    code, history = sgam(db, "history", "-t", "acme", "mira", "passport_deadline")
    assert code == 0 and [a["value"] for a in history] == ["2026-07-15", "2026-06-30"]  # type: ignore[union-attr]
    code, rows = sgam(db, "query", "-t", "acme", "--attribute", "passport_deadline", "--all-times")
    assert code == 0 and len(rows) == 2  # type: ignore[arg-type]
    code, other = sgam(db, "get", "-t", "globex", "mira", "passport_deadline")
    assert code == 0 and other is None


def test_retract_correct_forget(db: str) -> None:
    sgam(db, "episode", "-t", "acme", "e1", "2026-06-01T00:00:00Z", "x")
    sgam(db, "write", "-t", "acme", "bob", "city", "Oslo", "--valid-from", "2026-06-01T00:00:00Z", "--source", "e1")
    code, corrected = sgam(db, "correct", "-t", "acme", "bob", "city", "Bergen",
                           "--valid-from", "2026-06-01T00:00:00Z", "--source", "e1")
    assert code == 0 and isinstance(corrected, dict) and corrected["effect"] == "corrected"
    code, retracted = sgam(db, "retract", "-t", "acme", "bob", "city", "--at", "2026-06-05T00:00:00Z",
                           "--source", "e1")
    assert code == 0 and isinstance(retracted, dict) and retracted["effect"] == "retracted"
    code, gone = sgam(db, "forget", "-t", "acme", "--episode", "e1")
    assert code == 0 and isinstance(gone, dict) and gone["operations_removed"] == 3
    assert sgam(db, "get", "-t", "acme", "bob", "city", "--at", "2026-06-02T00:00:00Z")[1] is None


@pytest.mark.parametrize(
    ("args", "status", "kind"),
    [
        (["write", "-t", "acme", "mira", "x", "1", "--valid-from", "2026-06-01T00:00:00", "--source", "e1"], 3,
         "validation"),
        (["write", "-t", "acme", "mira", "x", "1", "--valid-from", "2026-06-01T00:00:00Z", "--source", "nope"], 4,
         "not_found"),
        (["write", "-t", "acme", "mira", "x", "2", "--valid-from", "2026-06-01T00:00:00Z", "--source", "e1"], 5,
         "conflict"),
        (["get", "-t", "bad tenant", "mira", "x"], 3, "validation"),
        (["forget", "-t", "acme", "--episode", "missing"], 4, "not_found"),
    ],
)
def test_errors_have_their_exit_status(db: str, args: list[str], status: int, kind: str) -> None:
    sgam(db, "episode", "-t", "acme", "e1", "2026-06-01T00:00:00Z", "x")
    sgam(db, "write", "-t", "acme", "mira", "x", "1", "--valid-from", "2026-06-01T00:00:00Z", "--source", "e1")
    code, payload = sgam(db, *args)
    assert code == status
    assert isinstance(payload, dict) and payload["error"]["kind"] == kind
    assert sgam(db, "get", "-t", "acme", "mira", "x")[1]["value"] == 1  # type: ignore[index]


def test_database_url_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGAM_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    result = runner.invoke(app, ["episode", "-t", "acme", "e1", "2026-06-01T00:00:00Z", "x"])
    assert result.exit_code == 0
    assert (tmp_path / "env.db").exists()


def test_bad_database_url_is_a_validation_error() -> None:
    result = runner.invoke(app, ["get", "-t", "acme", "a", "b", "--db", "mysql://nope", "--json"])
    assert result.exit_code == 3
