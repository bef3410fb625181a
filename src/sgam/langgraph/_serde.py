"""The checkpoint serializer: LangGraph's msgpack, restricted to safe or declared types.

A checkpoint blob is code waiting to run: LangGraph's default serializer imports and
calls whatever type a blob names. sgam's saver refuses that by default, as LangGraph's
advisory asks (``LANGGRAPH_STRICT_MSGPACK``): only LangGraph's own safe types (messages,
``Send``, ``Interrupt``, ``Command``, dates, UUIDs, ...) and the types a saver declares
are rebuilt. LangGraph itself would hand a blocked value back as raw data; here a blocked
type is an error, at ``put`` (so nothing that could not be read back is stored) and at
read (a blob written by another, laxer writer)."""

from __future__ import annotations

import contextvars
from collections.abc import Iterable
from typing import Any

from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.event_hooks import SerdeEvent, register_serde_event_listener
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from .._core.errors import ValidationError

_BLOCKED_KINDS = frozenset({"msgpack_blocked", "msgpack_method_blocked"})
_PLAIN_KINDS = frozenset({"null", "bytes", "bytearray"})
_READ_KINDS = _PLAIN_KINDS | {"msgpack"}
"""The kinds this serializer writes, and the only ones it reads: ``json`` (whose
LangChain ``lc`` envelopes name constructors to call) and any other kind are refused
before a decoder sees the bytes."""
_EXT_MARKERS = bytes((0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8))
"""The first bytes of msgpack's extension types (ext 8/16/32, fixext 1-16), which carry
every value that is not plain data; the same bytes inside strings or numbers only make
the check below look closer, never skip it."""
_NOT_MARKERS = bytes(b for b in range(256) if b not in _EXT_MARKERS)
_blocked: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("sgam_serde_blocked", default=None)


def _listen(event: SerdeEvent) -> None:
    seen = _blocked.get()
    if seen is not None and event.get("kind") in _BLOCKED_KINDS:
        seen.append(".".join(str(event.get(part)) for part in ("module", "name") if event.get(part)))


register_serde_event_listener(_listen)


class StrictSerializer(SerializerProtocol):
    """``JsonPlusSerializer`` without pickle, whose msgpack rebuilds only safe types and
    ``allowed`` ones (``(module, name)`` pairs or the classes themselves)."""

    def __init__(self, allowed: Iterable[tuple[str, ...] | type] = ()) -> None:
        declared = list(allowed)
        self._inner = JsonPlusSerializer(pickle_fallback=False, allowed_msgpack_modules=declared or None)

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """The value's bytes, loaded back first unless they are plain data (no extension
        type), which every reader rebuilds: what could not be read back is never stored."""
        kind, data = self._inner.dumps_typed(obj)
        if not _plain(kind, data):
            self._load(kind, data, "value")
        return kind, data

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        # Every stored value goes through the check, which costs a context variable's
        # set and reset (0.2 µs); scanning the bytes for extension markers first, to skip
        # it for plain data, cost more than it saved: 0.3 µs for a small checkpoint,
        # twice the decoding itself for a large one.
        return self._load(data[0], data[1], "stored value")

    def _load(self, kind: str, data: bytes, what: str) -> Any:
        if kind == "pickle":
            raise ValidationError("checkpoint", what, "must not be a pickle: the saver rebuilds no pickled data")
        if kind not in _READ_KINDS:
            raise ValueError(f"serialization kind {kind[:40]!r} is not one the strict serializer reads")
        blocked: list[str] = []
        token = _blocked.set(blocked)
        try:
            value = self._inner.loads_typed((kind, data))
        finally:
            _blocked.reset(token)
        if blocked:
            names = ", ".join(sorted(set(blocked)))
            raise ValidationError(
                "checkpoint", names,
                "holds a type the strict serializer does not rebuild; declare it with SgamSaver(allowed_types=...)")
        return value


def _plain(kind: str, data: bytes) -> bool:
    """Bytes that load without constructing anything: no type to refuse in them."""
    return kind in _PLAIN_KINDS or (kind == "msgpack" and not data.translate(None, _NOT_MARKERS))
