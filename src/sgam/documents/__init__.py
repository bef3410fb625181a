"""Document memory: a tenant's files under /memories, with revisions, containment and
search. The memory tool's commands over it live in ``sgam.tools``."""

from __future__ import annotations

from ._checks import DEFAULT_RETENTION, Edit, Provenance
from ._model import Document, DocumentHit, Entry, Revision
from .paths import ROOT, PathError, check_path
from .service import Documents

__all__ = [
    "DEFAULT_RETENTION", "ROOT", "Document", "DocumentHit", "Documents", "Edit", "Entry",
    "PathError", "Provenance", "Revision", "check_path",
]
