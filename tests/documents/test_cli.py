"""``sgam docs``: each command's JSON and exit status."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sgam.cli import app

runner = CliRunner()


def sgam(db: str, *args: str, stdin: str | None = None) -> tuple[int, object]:
    result = runner.invoke(app, ["docs", *args, "--db", db, "--json"], input=stdin)
    try:
        return result.exit_code, json.loads(result.stdout)
    except json.JSONDecodeError:
        return result.exit_code, result.stdout


def test_docs_commands_round_trip(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    code, created = sgam(db, "create", "-t", "acme", "/memories/n.md", "--text", "one\ntwo\n")
    assert code == 0 and isinstance(created, dict) and created["revision"] == 1
    assert sgam(db, "create", "-t", "acme", "/memories/n.md", "--text", "again")[0] == 5
    code, viewed = sgam(db, "view", "-t", "acme", "/memories/n.md")
    assert code == 0 and isinstance(viewed, dict) and viewed["content"] == "one\ntwo\n"
    code, listed = sgam(db, "view", "-t", "acme")
    assert code == 0 and listed == {"path": "/memories", "entries": [
        {"path": "/memories/n.md", "is_dir": False, "size": 8}]}
    assert sgam(db, "edit", "-t", "acme", "/memories/n.md", "--old", "two", "--new", "2", "--revision", "1")[0] == 0
    assert sgam(db, "edit", "-t", "acme", "/memories/n.md", "--old", "one", "--new", "1", "--revision", "1")[0] == 5
    assert sgam(db, "edit", "-t", "acme", "/memories/n.md", "--insert-line", "0", "--text", "zero")[0] == 0
    assert sgam(db, "edit", "-t", "acme", "/memories/n.md", "--file", "-", stdin="whole\n")[0] == 0
    code, history = sgam(db, "history", "-t", "acme", "/memories/n.md")
    assert code == 0 and isinstance(history, list)
    assert [r["op"] for r in history] == ["create", "str_replace", "insert", "write"]
    assert all(r["author"] == "cli" for r in history)
    code, diff = sgam(db, "history", "-t", "acme", "/memories/n.md", "--diff", "1:4")
    assert code == 0 and isinstance(diff, dict) and "+whole" in diff["diff"]
    code, hits = sgam(db, "search", "-t", "acme", "whole")
    assert code == 0 and isinstance(hits, list) and hits[0]["path"] == "/memories/n.md"
    assert sgam(db, "mv", "-t", "acme", "/memories/n.md", "/memories/d/m.md")[0] == 0
    assert sgam(db, "restore", "-t", "acme", "/memories/d/m.md", "1")[0] == 0
    assert sgam(db, "view", "-t", "acme", "/memories/../etc/passwd")[0] == 3
    assert sgam(db, "view", "-t", "acme", "/memories/nope.md")[0] == 4
    assert sgam(db, "rm", "-t", "acme", "/memories/d")[0] == 0
    code, erased = sgam(db, "erase", "-t", "acme", "/memories/d/m.md")
    assert code == 0 and erased == {"revisions_removed": 7}


def test_docs_export_and_import_report_conflicts_with_exit_5(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    out = tmp_path / "out"
    assert sgam(db, "create", "-t", "acme", "/memories/a.md", "--text", "a\n")[0] == 0
    assert sgam(db, "export", "-t", "acme", str(out))[0] == 0
    (out / "a.md").write_text("disk\n")
    assert sgam(db, "edit", "-t", "acme", "/memories/a.md", "--text", "db\n")[0] == 0
    code, result = sgam(db, "import", "-t", "acme", str(out))
    assert code == 5 and isinstance(result, dict) and result["conflicts"][0]["path"] == "/memories/a.md"
    code, viewed = sgam(db, "view", "-t", "acme", "/memories/a.md")
    assert isinstance(viewed, dict) and viewed["content"] == "db\n"


def test_export_and_import_refuse_the_directory_that_holds_the_database(tmp_path: Path) -> None:
    """Both read every file under DIR; reading the database there would drop the locks
    of the connection this process has open on it."""
    db = f"sqlite:///{tmp_path / 'sgam.db'}"
    assert sgam(db, "create", "-t", "acme", "/memories/n.md", "--text", "one")[0] == 0
    for command in ("export", "import"):
        for directory in (tmp_path, tmp_path.parent):
            code, out = sgam(db, command, "-t", "acme", str(directory))
            assert code == 3 and isinstance(out, dict) and out["error"]["field"] == "directory", (command, out)
    assert sgam(db, "export", "-t", "acme", str(tmp_path / "out"))[0] == 0

def test_docs_import_refuses_an_export_of_another_tenant(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    out = tmp_path / "out"
    assert sgam(db, "create", "-t", "acme", "/memories/a.md", "--text", "acme\n")[0] == 0
    assert sgam(db, "create", "-t", "globex", "/memories/a.md", "--text", "globex\n")[0] == 0
    assert sgam(db, "export", "-t", "acme", str(out))[0] == 0
    (out / "a.md").write_text("acme edited\n")
    result = runner.invoke(app, ["docs", "import", "-t", "globex", str(out), "--db", db])
    assert result.exit_code == 3 and "export of another tenant ('acme')" in result.stderr
    code, viewed = sgam(db, "view", "-t", "globex", "/memories/a.md")
    assert code == 0 and isinstance(viewed, dict) and viewed["content"] == "globex\n"


def test_text_reads_standard_input_with_a_dash_and_a_file_with_at(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    notes = tmp_path / "f.txt"
    notes.write_text("from a file\n", encoding="utf-8")
    assert sgam(db, "create", "-t", "acme", "/memories/in.md", "--text", "-", stdin="from stdin\n")[0] == 0
    assert sgam(db, "create", "-t", "acme", "/memories/file.md", "--text", f"@{notes}")[0] == 0
    assert sgam(db, "create", "-t", "acme", "/memories/at.md", "--text", "@@home")[0] == 0
    assert sgam(db, "edit", "-t", "acme", "/memories/at.md", "--insert-line", "1", "--text", f"@{notes}")[0] == 0
    shown = {path: sgam(db, "view", "-t", "acme", path)[1] for path in ("/memories/in.md", "/memories/file.md",
                                                                         "/memories/at.md")}
    assert [document["content"] for document in shown.values()] == [  # type: ignore[index]
        "from stdin\n", "from a file\n", "@home\nfrom a file\n"]
    code, error = sgam(db, "create", "-t", "acme", "/memories/missing.md", "--text", f"@{tmp_path / 'nope.txt'}")
    assert code == 3 and error["error"]["field"] == "text"  # type: ignore[index]
    assert sgam(db, "view", "-t", "acme", "/memories/missing.md")[0] == 4
