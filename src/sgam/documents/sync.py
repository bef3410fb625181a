"""Documents as files: export a tenant's documents to a directory, import edits back.

The database stays the source of truth. ``export`` writes each live document to
``DIR/<path below /memories>`` and a manifest (``.sgam-export.json``) of the revision
and SHA-256 each file was written from. ``import_directory`` brings back only files
that changed since the export, each as a write naming the exported revision: if the
database moved on meanwhile the file is reported as a conflict and nothing is
overwritten. Symbolic links and hard-linked files anywhere under DIR, names that are not
valid memory paths, and a manifest of another tenant refuse the whole import before
anything is written. A document named like the manifest cannot be a file beside it: export
skips it (and says so), import never deletes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._core.errors import ConflictError, NotFoundError, ValidationError
from ._checks import Provenance
from .paths import ROOT, PathError, check_path, relative
from .service import Documents
from .text import MAX_DOCUMENT_BYTES, decode_file

MANIFEST = ".sgam-export.json"
MANIFEST_PATH = f"{ROOT}/{MANIFEST}"
"""The memory path whose file would be the manifest itself."""
IMPORT_AUTHOR = "import"


@dataclass(frozen=True, slots=True)
class ExportResult:
    """``skipped``: documents not written because their file would be the manifest."""

    directory: str
    files: int
    skipped: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ImportResult:
    """What an import did. ``conflicts``: files not imported because the database moved
    on since the export (or a document exists that the export did not include)."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    missing: list[str] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _refuse_symlink(path: Path) -> None:
    if path.is_symlink():
        raise ValidationError("directory", str(path), "is a symbolic link; sgam does not follow links")


def _refuse_hard_link(path: Path, info: os.stat_result) -> None:
    """A file with another name elsewhere is a link too: writing or reading it would
    reach a file outside the export."""
    if info.st_nlink > 1:
        raise ValidationError("directory", str(path), f"has {info.st_nlink} hard links; sgam does not follow links")


def _read_manifest(directory: Path, tenant: str) -> dict[str, dict[str, Any]]:
    """The files of the export in ``directory``, which must be ``tenant``'s: revision
    numbers of another tenant's export name other documents."""
    target = directory / MANIFEST
    if not target.exists():
        return {}
    _refuse_symlink(target)
    _refuse_hard_link(target, target.lstat())
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
        owner, files = data["tenant"], data["files"]
        found = {check_path(path): {"revision": int(v["revision"]), "sha256": str(v["sha256"])}
                 for path, v in files.items()}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValidationError("manifest", str(target), f"is not a valid sgam export manifest ({exc})") from None
    if owner != tenant:
        raise ValidationError("tenant", tenant, f"{directory} holds an export of another tenant ({owner!r}); "
                                                "use that tenant, or a directory of this tenant's own")
    found.pop(MANIFEST_PATH, None)  # never a file of the export: the manifest stands there
    return found


def _write_manifest(directory: Path, tenant: str, files: dict[str, dict[str, Any]]) -> None:
    data = {"format": 1, "tenant": tenant, "files": dict(sorted(files.items()))}
    _write_file(directory, MANIFEST, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _write_file(directory: Path, name: str, text: str) -> None:
    """Create or replace ``directory/name`` without following a link at any step."""
    target = directory / name
    current = directory
    for part in Path(name).parts[:-1]:
        current = current / part
        _refuse_symlink(current)
        current.mkdir(exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(target, flags, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def export(documents: Documents, tenant: str, directory: str | Path) -> ExportResult:
    """Write every live document of ``tenant`` under ``directory`` (created if missing).
    A directory holding anything but an earlier export is refused; so is an earlier
    export with files edited since (import them first)."""
    root = Path(directory)
    _refuse_symlink(root)
    previous = _read_manifest(root, tenant) if root.exists() else {}
    if root.exists():
        if not root.is_dir():
            raise ValidationError("directory", str(root), "is not a directory")
        local = _scan(root)
        unknown = sorted(set(local) - set(previous))
        if unknown:
            raise ConflictError(f"{root} holds files that are not from an sgam export: {', '.join(unknown[:5])}",
                                field="directory", value=str(root))
        edited = sorted(p for p, text in local.items() if _digest(text) != previous[p]["sha256"])
        if edited:
            raise ConflictError(f"files edited since the last export would be overwritten: {', '.join(edited[:5])} "
                                "(import them first)", field="directory", value=str(root))
        for path in previous:
            if path in local:
                (root / relative(path)).unlink()
    root.mkdir(parents=True, exist_ok=True)
    files: dict[str, dict[str, Any]] = {}
    skipped = []
    for document in documents.all(tenant):
        if document.path == MANIFEST_PATH:
            skipped.append(document.path)
            continue
        _write_file(root, relative(document.path), document.content)
        files[document.path] = {"revision": document.revision, "sha256": _digest(document.content)}
    _write_manifest(root, tenant, files)
    return ExportResult(str(root), len(files), skipped)


def _scan(root: Path) -> dict[str, str]:
    """Every file under ``root`` as {memory path: text}, the manifest excepted; a link
    (symbolic or hard), an invalid name, a non-regular file or a file that is not text
    refuses the scan."""
    found: dict[str, str] = {}
    for current, dirs, names in os.walk(root, followlinks=False):
        here = Path(current)
        for name in sorted(dirs + names):
            entry = here / name
            info = entry.lstat()
            if stat.S_ISLNK(info.st_mode):
                raise ValidationError("directory", str(entry), "is a symbolic link; sgam does not follow links")
            if stat.S_ISDIR(info.st_mode) or (here == root and name == MANIFEST):
                continue
            if not stat.S_ISREG(info.st_mode):
                raise ValidationError("directory", str(entry), "is not a regular file")
            _refuse_hard_link(entry, info)
            rel = entry.relative_to(root).as_posix()
            try:
                path = check_path(f"{ROOT}/{rel}", "file")
            except PathError as exc:
                raise ValidationError("file", rel, f"is not a valid memory path: {exc.rule}") from None
            if info.st_size > MAX_DOCUMENT_BYTES:
                raise ValidationError("file", rel, f"larger than the {MAX_DOCUMENT_BYTES} bytes a document may hold")
            found[path] = decode_file(_read_file(entry), f"file {rel}")
    return found


def _read_file(entry: Path) -> bytes:
    """The bytes of ``entry``, checked again on the open descriptor: the name may have
    become a link since it was listed."""
    descriptor = os.open(entry, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValidationError("directory", str(entry), "is not a regular file")
        _refuse_hard_link(entry, info)
        return handle.read(MAX_DOCUMENT_BYTES + 1)


def import_directory(
    documents: Documents, tenant: str, directory: str | Path, *, delete: bool = False, author: str = IMPORT_AUTHOR,
) -> ImportResult:
    """Bring edits made to an export back into the database. ``delete``: also delete
    documents whose files were removed (only if unchanged in the database since)."""
    root = Path(directory)
    _refuse_symlink(root)
    if not root.is_dir():
        raise ValidationError("directory", str(root), "is not a directory")
    manifest = _read_manifest(root, tenant)
    local = _scan(root)
    by = Provenance(author=author)
    result = ImportResult()
    for path, text in local.items():
        base = manifest.get(path)
        if base is not None and _digest(text) == base["sha256"]:
            result.unchanged += 1
            continue
        expected = 0 if base is None else base["revision"]
        _apply(documents, tenant, path, text, expected, by, result, manifest)
    for path, base in list(manifest.items()):
        if path in local:
            continue
        if not delete:
            result.missing.append(path)
            continue
        try:
            documents.delete(tenant, path, expected_revision=base["revision"], by=by)
            result.deleted.append(path)
            del manifest[path]
        except (ConflictError, NotFoundError) as exc:
            result.conflicts.append({"path": path, "exported_revision": base["revision"], "reason": exc.message})
    _write_manifest(root, tenant, manifest)
    return result


def _apply(
    documents: Documents, tenant: str, path: str, text: str, expected: int, by: Provenance, result: ImportResult,
    manifest: dict[str, dict[str, Any]],
) -> None:
    current = documents.get(tenant, path)
    if expected == 0 and current is not None and current.content == text:
        result.unchanged += 1
        manifest[path] = {"revision": current.revision, "sha256": _digest(text)}
        return
    try:
        written = documents.write(tenant, path, text, expected_revision=expected, by=by, op="import")
    except ConflictError as exc:
        result.conflicts.append({
            "path": path, "exported_revision": expected or None,
            "database_revision": None if current is None else current.revision, "reason": exc.message,
        })
        return
    (result.created if expected == 0 else result.updated).append(path)
    manifest[path] = {"revision": written.revision, "sha256": _digest(text)}
