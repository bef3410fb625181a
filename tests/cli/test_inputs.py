"""Input a new user gets wrong is refused with the fix, and long text has a way in."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sgam import Memory, ValidationError
from sgam.cli import app

AT = "2026-06-01T09:00:00Z"


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def db(tmp_path: Path) -> list[str]:
    tail = ["--db", f"sqlite:///{tmp_path / 'cli.db'}", "-t", "acme"]
    assert run("episode", *tail, "e1", AT, "Mira is tagged.")[0] == 0
    return tail


def stored(tail: list[str], attribute: str) -> object:
    code, out, _ = run("get", *tail, "mira", attribute, "--json")
    assert code == 0
    return json.loads(out)


@pytest.mark.parametrize("value", ["[1,2", '{"a": 1', '"unclosed', "[1, 2,]"])
def test_malformed_json_that_looks_like_json_is_refused_with_the_fix(db: list[str], value: str) -> None:
    code, _, err = run("write", *db, "mira", "tags", value, "--valid-from", AT, "--source", "e1")
    assert code == 3, err
    assert "looks like JSON but is not valid JSON" in err and json.dumps(value) in err
    assert stored(db, "tags") is None


def test_text_that_looks_like_json_is_stored_when_given_as_a_json_string(db: list[str]) -> None:
    assert run("write", *db, "mira", "tags", '"[1,2"', "--valid-from", AT, "--source", "e1")[0] == 0
    assert stored(db, "tags")["value"] == "[1,2"  # type: ignore[index]


def test_bare_words_and_dates_are_still_strings(db: list[str]) -> None:
    assert run("write", *db, "mira", "city", "Paris", "--valid-from", AT, "--source", "e1")[0] == 0
    assert run("write", *db, "mira", "deadline", "2026-07-15", "--valid-from", AT, "--source", "e1")[0] == 0
    assert stored(db, "city")["value"] == "Paris"  # type: ignore[index]
    assert stored(db, "deadline")["value"] == "2026-07-15"  # type: ignore[index]


def test_json_is_json_and_string_keeps_the_text_typed(db: list[str]) -> None:
    for attribute, typed in (("zip", "12345"), ("code", "01234"), ("flag", "true")):
        assert run("write", *db, "mira", attribute, typed, "--valid-from", AT, "--source", "e1")[0] == 0
    assert [stored(db, a)["value"] for a in ("zip", "code", "flag")] == [12345, "01234", True]  # type: ignore[index]
    later = "2026-06-02T09:00:00Z"
    for attribute, typed in (("zip", "12345"), ("flag", "true"), ("tags", "[1, 2]")):
        assert run("write", *db, "mira", attribute, typed, "--valid-from", later, "--source", "e1",
                   "--string")[0] == 0
    assert [stored(db, a)["value"] for a in ("zip", "flag", "tags")] == [  # type: ignore[index]
        "12345", "true", "[1, 2]"]
    assert run("correct", *db, "mira", "zip", "54321", "--valid-from", later, "--source", "e1", "--string")[0] == 0
    assert stored(db, "zip")["value"] == "54321"  # type: ignore[index]


def test_a_number_for_a_string_attribute_says_how_to_quote_it(db: list[str]) -> None:
    assert run("declare", *db, "zip", "string")[0] == 0
    code, _, err = run("write", *db, "mira", "zip", "12345", "--valid-from", AT, "--source", "e1")
    assert code == 3
    assert "quote it as JSON: '\"12345\"'" in err
    assert run("write", *db, "mira", "zip", '"12345"', "--valid-from", AT, "--source", "e1")[0] == 0


def test_a_python_date_names_the_format(memory: Memory) -> None:
    memory.add_episode("acme", "e1", AT, "x")
    memory.declare("acme", "deadline", "date")
    for attribute in ("deadline", "undeclared"):
        with pytest.raises(ValidationError) as caught:
            memory.write("acme", "mira", attribute, date(2026, 7, 15), AT, "e1")
        assert "YYYY-MM-DD" in caught.value.message
    assert memory.query("acme", all_times=True) == []


def test_empty_episode_text_is_refused(memory: Memory) -> None:
    for text in ("", "   \n"):
        with pytest.raises(ValidationError) as caught:
            memory.add_episode("acme", "e1", AT, text)
        assert caught.value.field == "text"
    assert memory.episodes("acme") == []


@pytest.mark.parametrize("command", [
    ["get", "mira", "city"], ["history", "mira", "city"], ["query"], ["versions", "mira", "city"],
    ["episodes"], ["schema"], ["extractions", "list"], ["extractions", "held"], ["search", "city"],
    ["recall", "Where does Mira live?"], ["audit"], ["residue", "zebrafinch"], ["retention", "report"],
    ["actions"], ["keys", "list"], ["docs", "view"], ["docs", "view", "/memories/notes.md"],
    ["docs", "history", "/memories/notes.md"], ["docs", "history", "/memories/notes.md", "--show", "1"],
    ["docs", "history", "/memories/notes.md", "--diff", "1:2"], ["docs", "search", "teal"],
    ["docs", "export", "exported"],
])
def test_reads_never_create_a_database(tmp_path: Path, command: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    typo = tmp_path / "typo.db"
    code, _, err = run(*command, "--db", f"sqlite:///{typo}", "-t", "acme")
    assert code == 4, err
    assert f"the SQLite file {typo} does not exist" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "a read created a file"


def test_revoking_a_key_in_a_missing_database_creates_none(tmp_path: Path) -> None:
    typo = tmp_path / "typo.db"
    code, _, err = run("keys", "revoke", "acme.abc", "--db", f"sqlite:///{typo}")
    assert code == 4 and f"the SQLite file {typo} does not exist" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("tenant", "scope", "field"), [("acme", "superuser", "scope"), ("", "read", "tenant")])
def test_a_refused_key_creates_no_database(tmp_path: Path, tenant: str, scope: str, field: str) -> None:
    code, out, _ = run("keys", "create", "-t", tenant, "--scope", scope, "--db", f"sqlite:///{tmp_path / 'new.db'}",
                       "--json")
    assert code == 3 and json.loads(out)["error"]["field"] == field
    assert list(tmp_path.iterdir()) == []


def test_an_empty_db_option_is_refused_not_replaced_by_the_default(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run("episode", "--db", "", "-t", "acme", "e1", AT, "x")
    assert code == 3 and "db:" in err
    assert not (tmp_path / "sgam.db").exists()


def test_an_unknown_tenant_is_pointed_out(db: list[str]) -> None:
    other = [*db[:2], "-t", "acme-typo"]
    code, out, err = run("get", *other, "mira", "city")
    assert code == 0 and "nothing holds for mira.city" in out
    assert "tenant 'acme-typo' has recorded nothing" in err


def test_a_tenant_holding_only_documents_or_hidden_episodes_is_not_called_empty(tmp_path: Path) -> None:
    documents = ["--db", f"sqlite:///{tmp_path / 'docs.db'}", "-t", "acme"]
    assert run("docs", "create", *documents, "/memories/a.md", "--text", "notes")[0] == 0
    revoked = ["--db", f"sqlite:///{tmp_path / 'revoked.db'}", "-t", "acme"]
    assert run("episode", *revoked, "e1", AT, "Mira moved to Oslo.")[0] == 0
    assert run("write", *revoked, "mira", "city", "Oslo", "--valid-from", AT, "--source", "e1")[0] == 0
    assert run("consent", *revoked, "mira", "--revoke")[0] == 0
    for tail in (documents, revoked):
        code, out, err = run("get", *tail, "mira", "age")
        assert code == 0 and "nothing holds for mira.age" in out
        assert "recorded nothing" not in err, err


def test_long_text_from_standard_input(db: list[str]) -> None:
    text = "Mira moved to Oslo. " * 10_000  # 200 KB: more than a command line holds
    code, _, err = run("episode", *db, "long", AT, "-", "--json", stdin=text)
    assert code == 0, err
    code, out, _ = run("episodes", *db, "--json")
    assert [e["text"] for e in json.loads(out) if e["id"] == "long"] == [text]


def test_text_from_a_file_and_a_literal_at_sign(db: list[str], tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    note.write_text("Mira prefers tea.\n", encoding="utf-8")
    assert run("episode", *db, "from-file", AT, f"@{note}")[0] == 0
    assert run("episode", *db, "literal", AT, "@@mira said hi")[0] == 0
    code, out, _ = run("episodes", *db, "--json")
    texts = {e["id"]: e["text"] for e in json.loads(out)}
    assert texts["from-file"] == "Mira prefers tea.\n" and texts["literal"] == "@mira said hi"


def test_an_unreadable_text_file_is_a_validation_error(db: list[str], tmp_path: Path) -> None:
    code, _, err = run("episode", *db, "e9", AT, f"@{tmp_path / 'missing.txt'}")
    assert code == 3
    assert "missing.txt cannot be read" in err and "write @@" in err


LINE_ENDINGS = {
    "episode tenant": (["episode", "-t", "acme\n", "e2", AT, "x"], "tenant"),
    "get tenant": (["get", "-t", "acme\n", "mira", "city"], "tenant"),
    "keys create tenant": (["keys", "create", "-t", "acme\n", "--scope", "read"], "tenant"),
    "episode at": (["episode", "-t", "acme", "e2", AT + "\n", "x"], "at"),
    "write valid_from": (["write", "-t", "acme", "mira", "city", "Rome", "--valid-from", AT + "\n", "--source", "e1"],
                         "valid_from"),
    "get at": (["get", "-t", "acme", "mira", "city", "--at", AT + "\n"], "at"),
    "episode id": (["episode", "-t", "acme", "e2\n", AT, "x"], "id"),
    "write subject": (["write", "-t", "acme", "mira\n", "city", "Rome", "--valid-from", AT, "--source", "e1"],
                      "subject"),
    "consent subject": (["consent", "-t", "acme", "mira\n", "--revoke"], "subject"),
}


@pytest.mark.parametrize("name", list(LINE_ENDINGS))
def test_a_final_newline_is_refused_naming_the_field(db: list[str], name: str) -> None:
    command, field = LINE_ENDINGS[name]
    code, _, err = run(*command, "--db", db[1])
    assert code == 3, err
    assert f"{field}:" in err and "\\n" in err
    with Memory(db[1]) as memory:
        assert [e.id for e in memory.episodes("acme")] == ["e1"]
        assert memory.query("acme", all_times=True) == [] and memory.consents("acme") == []


def test_compact_exits_with_the_status_of_its_error_kind(tmp_path: Path) -> None:
    """``compact`` maps errors through the one table: 3 for bad input, 4 for a missing file."""
    url = f"sqlite:///{tmp_path / 'sgam.db'}"
    Memory(url).close()
    code, _, err = run("compact", "--db", url, "--wait", "-1")
    assert code == 3 and "wait" in err, err
    typo = tmp_path / "typo.db"
    code, _, err = run("compact", "--db", f"sqlite:///{typo}")
    assert code == 4 and f"the SQLite file {typo} does not exist" in err, err
    assert not typo.exists()
