"""Namespaces and keys of the LangGraph store: LangGraph's validation, and how an item
maps onto the ledger and onto the items table.

An item ``(namespace, key)`` is the ledger key ``(subject, attribute)`` with the subject
the namespace as compact JSON (``["users","123"]``) and the attribute the key with
control characters JSON-escaped, so both are printable names; the items table keeps the
namespace as its labels joined by ``.``, which LangGraph forbids inside a label, so a
prefix of labels is a prefix of text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.store.base import InvalidNamespaceError, MatchCondition

from .._core.errors import ValidationError
from .._core.values import MAX_NAME_LENGTH
from ..items.keys import attribute_of as attribute_of
from ..items.keys import joined as joined
from ..items.keys import split as split
from ..items.keys import subject_of as subject_of


class NamespaceError(ValidationError, InvalidNamespaceError):
    """A namespace LangGraph refuses (or sgam cannot store): both an sgam
    ``ValidationError`` and LangGraph's ``InvalidNamespaceError``."""


def check_namespace(namespace: object, *, field: str = "namespace", public: bool = True) -> tuple[str, ...]:
    """LangGraph's rules (non-empty, string labels without dots; on the public ``put``
    no ``langgraph`` root, which LangGraph keeps for itself and writes through ``batch``)
    plus sgam's: no NUL in a label, and a stored form of bounded length."""
    if not isinstance(namespace, (tuple, list)) or not namespace:
        raise NamespaceError(field, namespace, "must be a non-empty tuple of labels")
    labels = tuple(namespace)
    for label in labels:
        if not isinstance(label, str):
            raise NamespaceError(field, namespace, f"labels must be strings, not {type(label).__name__}")
        if not label:
            raise NamespaceError(field, namespace, "labels must not be empty")
        if "." in label:
            raise NamespaceError(field, namespace, "labels must not contain a period ('.')")
        if "\x00" in label:
            raise NamespaceError(field, namespace, "labels must not contain NUL characters")
    if public and labels[0] == "langgraph":
        raise NamespaceError(field, namespace, 'the root label must not be "langgraph"')
    if len(subject_of(labels)) > MAX_NAME_LENGTH:
        raise NamespaceError(field, namespace, f"longer than {MAX_NAME_LENGTH} characters when stored")
    return labels


def check_prefix(prefix: object, field: str = "namespace_prefix") -> tuple[str, ...]:
    """A search prefix: a tuple of string labels, possibly empty."""
    if not isinstance(prefix, (tuple, list)) or not all(isinstance(label, str) for label in prefix):
        raise NamespaceError(field, prefix, "must be a tuple of string labels")
    return tuple(prefix)


def check_key(key: object) -> str:
    if not isinstance(key, str) or not key.strip():
        raise ValidationError("key", key, "must be a non-empty string")
    if "\x00" in key:
        raise ValidationError("key", key, "must not contain NUL characters")
    if len(attribute_of(key)) > MAX_NAME_LENGTH:
        raise ValidationError("key", key, f"longer than {MAX_NAME_LENGTH} characters when stored")
    return key


def literal_prefix(prefix: Sequence[str]) -> str | None:
    """The labels before the first wildcard, joined: what an index range can narrow."""
    labels: list[str] = []
    for label in prefix:
        if label == "*":
            break
        labels.append(label)
    return joined(labels) if labels else None


def matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """A prefix or suffix condition, ``*`` standing for any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs: Any = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValidationError("match_type", condition.match_type, "must be 'prefix' or 'suffix'")
    return all(wanted == "*" or label == wanted for label, wanted in pairs)
