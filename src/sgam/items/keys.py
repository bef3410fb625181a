"""How an item of the LangGraph store maps onto a ledger key, without LangGraph itself:
expiry settles items inside the core, where the optional ``langgraph`` package may be
missing.

The items table keeps a namespace as its labels joined by ``.`` (LangGraph forbids a dot
inside a label); the ledger's subject is the namespace as compact JSON and its attribute
the key with control characters JSON-escaped, so both are printable names.
"""

from __future__ import annotations

import json
from collections.abc import Sequence


def joined(namespace: Sequence[str]) -> str:
    return ".".join(namespace)


def split(text: str) -> tuple[str, ...]:
    return tuple(text.split("."))


def subject_of(namespace: Sequence[str]) -> str:
    return json.dumps(list(namespace), ensure_ascii=False, separators=(",", ":"))


def attribute_of(key: str) -> str:
    return json.dumps(key, ensure_ascii=False)[1:-1]


def ledger_key(namespace: str, key: str) -> tuple[str, str]:
    """The ledger key of the item stored as (``namespace`` joined, ``key``)."""
    return subject_of(split(namespace)), attribute_of(key)
