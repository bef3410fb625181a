"""sgam as LangGraph's long-term store (``pip install 'sgam[langgraph]'``)."""

from __future__ import annotations

from ._items import ItemVersion
from ._namespace import NamespaceError
from .checkpoint import SgamSaver
from .store import SgamStore

__all__ = ["ItemVersion", "NamespaceError", "SgamSaver", "SgamStore"]
