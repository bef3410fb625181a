"""The ``sgam`` command line: a thin skin over ``sgam.Memory``."""

from .app import app, main

__all__ = ["app", "main"]
