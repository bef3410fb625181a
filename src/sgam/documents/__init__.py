"""Document memory: a tenant's files under /memories, with revisions, containment,
search, and the memory-tool command set (``MemoryTool``)."""

from __future__ import annotations

from ._checks import DEFAULT_RETENTION, Edit, Provenance
from ._model import Document, DocumentHit, Entry, Revision
from .paths import ROOT, PathError, check_path
from .service import Documents
from .tool import MemoryTool, ToolResult

__all__ = [
    "DEFAULT_RETENTION", "ROOT", "Document", "DocumentHit", "Documents", "Edit", "Entry", "MemoryTool",
    "PathError", "Provenance", "Revision", "ToolResult", "check_path",
]
