"""A tenant's memory carried from one store to another: export, import and move, every
instant of its history kept (docs/portability.md)."""

from .exporter import ExportSummary, Progress, export_tenant
from .importer import ImportSummary, import_tenant
from .move import MoveSummary, erase_tenant, move_tenant
from .subject import export_subject

__all__ = ["ExportSummary", "ImportSummary", "MoveSummary", "Progress", "erase_tenant", "export_subject",
           "export_tenant", "import_tenant", "move_tenant"]
