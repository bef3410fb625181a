"""Files on disk: export writes the tenant's documents, import brings edits back,
refusing links and invalid names, reporting conflicts instead of overwriting."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sgam import ConflictError, Memory, ValidationError
from sgam.documents.sync import MANIFEST, export, import_directory

T = "acme"


@pytest.fixture
def exported(memory: Memory, tmp_path: Path) -> Path:
    docs = memory.documents
    docs.create(T, "/memories/a.md", "alpha\n")
    docs.create(T, "/memories/dir/b.md", "beta\n")
    docs.create(T, "/memories/.hidden", "h\n")
    out = tmp_path / "out"
    assert export(docs, T, out).files == 3
    return out


def test_export_writes_each_document_and_a_manifest(exported: Path) -> None:
    assert (exported / "a.md").read_text() == "alpha\n"
    assert (exported / "dir" / "b.md").read_text() == "beta\n"
    assert (exported / ".hidden").read_text() == "h\n"
    manifest = json.loads((exported / MANIFEST).read_text())
    assert manifest["tenant"] == T and manifest["files"]["/memories/dir/b.md"]["revision"] == 1


def test_import_brings_back_edits_and_new_files_then_is_a_no_op(memory: Memory, exported: Path) -> None:
    (exported / "a.md").write_text("alpha edited\n")
    (exported / "new").mkdir()
    (exported / "new" / "c.md").write_text("gamma\n")
    result = import_directory(memory.documents, T, exported)
    assert (result.updated, result.created, result.unchanged, result.conflicts) == (
        ["/memories/a.md"], ["/memories/new/c.md"], 2, [])
    a = memory.documents.read(T, "/memories/a.md")
    assert (a.content, a.revision) == ("alpha edited\n", 2)
    assert memory.documents.history(T, "/memories/a.md")[-1].op == "import"
    again = import_directory(memory.documents, T, exported)
    assert (again.updated, again.created, again.unchanged) == ([], [], 4)


def test_import_reports_a_conflict_when_the_database_moved_on(memory: Memory, exported: Path) -> None:
    memory.documents.write(T, "/memories/a.md", "changed in the database\n")
    (exported / "a.md").write_text("changed on disk\n")
    memory.documents.create(T, "/memories/new.md", "db version\n")
    (exported / "new.md").write_text("disk version\n")
    result = import_directory(memory.documents, T, exported)
    assert [c["path"] for c in result.conflicts] == ["/memories/a.md", "/memories/new.md"]
    assert result.conflicts[0]["exported_revision"] == 1 and result.conflicts[0]["database_revision"] == 2
    assert memory.documents.read(T, "/memories/a.md").content == "changed in the database\n"
    assert memory.documents.read(T, "/memories/new.md").content == "db version\n"


def test_removed_files_are_deleted_only_when_asked(memory: Memory, exported: Path) -> None:
    (exported / "dir" / "b.md").unlink()
    assert import_directory(memory.documents, T, exported).missing == ["/memories/dir/b.md"]
    assert memory.documents.get(T, "/memories/dir/b.md") is not None
    assert import_directory(memory.documents, T, exported, delete=True).deleted == ["/memories/dir/b.md"]
    assert memory.documents.get(T, "/memories/dir/b.md") is None


@pytest.mark.parametrize("make", ["file_link", "dir_link", "hard_link", "hard_link_inside", "bad_name", "binary",
                                  "bad_utf8", "too_big"])
def test_import_refuses_links_bad_names_and_bad_text_before_writing(
    memory: Memory, exported: Path, tmp_path: Path, make: str,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("outside\n")
    (exported / "a.md").write_text("edit that must not land\n")
    if make == "file_link":
        os.symlink(outside / "secret.md", exported / "link.md")
    elif make == "dir_link":
        os.symlink(outside, exported / "linked")
    elif make == "hard_link":
        os.link(outside / "secret.md", exported / "hard.md")
    elif make == "hard_link_inside":
        os.link(exported / "a.md", exported / "dir" / "again.md")
    elif make == "bad_name":
        (exported / "a\\b.md").write_text("x")
    elif make == "binary":
        (exported / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    elif make == "bad_utf8":
        (exported / "latin.md").write_bytes("caf\u00e9".encode("latin-1"))
    else:
        (exported / "big.md").write_text("x" * (1024 * 1024 + 1))
    with pytest.raises(ValidationError):
        import_directory(memory.documents, T, exported)
    assert memory.documents.read(T, "/memories/a.md").revision == 1
    assert [d.path for d in memory.documents.all(T)] == ["/memories/.hidden", "/memories/a.md", "/memories/dir/b.md"]


def test_export_refuses_to_overwrite_unknown_or_edited_files(memory: Memory, exported: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "mine.txt").write_text("not from sgam")
    with pytest.raises(ConflictError, match="not from an sgam export"):
        export(memory.documents, T, other)
    (exported / "a.md").write_text("edited, not imported\n")
    with pytest.raises(ConflictError, match="import them first"):
        export(memory.documents, T, exported)
    (exported / "a.md").write_text("alpha\n")
    memory.documents.delete(T, "/memories/dir/b.md")
    assert export(memory.documents, T, exported).files == 2
    assert not (exported / "dir" / "b.md").exists()


def test_import_refuses_an_export_of_another_tenant(memory: Memory, exported: Path) -> None:
    """Revision numbers in acme's manifest say nothing of globex's documents: a globex
    document at the same path and revision must not be overwritten by acme's file."""
    memory.documents.create("globex", "/memories/a.md", "globex's own\n")
    (exported / "a.md").write_text("acme's edit\n")
    for delete in (False, True):
        with pytest.raises(ValidationError, match="export of another tenant") as refused:
            import_directory(memory.documents, "globex", exported, delete=delete)
        assert refused.value.field == "tenant"
    with pytest.raises(ValidationError, match="export of another tenant"):
        export(memory.documents, "globex", exported)
    assert [(d.path, d.content) for d in memory.documents.all("globex")] == [("/memories/a.md", "globex's own\n")]
    assert json.loads((exported / MANIFEST).read_text())["tenant"] == T
    assert import_directory(memory.documents, T, exported).updated == ["/memories/a.md"]


def test_a_document_named_like_the_manifest_is_skipped_and_never_deleted(memory: Memory, tmp_path: Path) -> None:
    docs = memory.documents
    docs.create(T, "/memories/a.md", "alpha\n")
    docs.create(T, f"/memories/{MANIFEST}", "a note that happens to bear the manifest's name\n")
    out = tmp_path / "out"
    result = export(docs, T, out)
    assert result.files == 1 and result.skipped == [f"/memories/{MANIFEST}"]
    manifest = json.loads((out / MANIFEST).read_text())
    assert list(manifest["files"]) == ["/memories/a.md"]
    outcome = import_directory(docs, T, out, delete=True)
    assert outcome.deleted == [] and outcome.missing == [] and outcome.conflicts == []
    # a manifest that lists it (as an older export wrote) does not make it a removed file either
    manifest["files"][f"/memories/{MANIFEST}"] = {"revision": 1, "sha256": "0" * 64}
    (out / MANIFEST).write_text(json.dumps(manifest))
    assert import_directory(docs, T, out, delete=True).deleted == []
    assert docs.read(T, f"/memories/{MANIFEST}").revision == 1


def test_a_hard_linked_manifest_is_refused(memory: Memory, exported: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.json").write_text((exported / MANIFEST).read_text())
    (exported / MANIFEST).unlink()
    os.link(tmp_path / "elsewhere.json", exported / MANIFEST)
    with pytest.raises(ValidationError, match="hard links"):
        import_directory(memory.documents, T, exported)
    with pytest.raises(ValidationError, match="hard links"):
        export(memory.documents, T, exported)
