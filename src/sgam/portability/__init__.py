"""A tenant's memory carried from one store to another: export, import and move, every
instant of its history kept (docs/portability.md)."""
