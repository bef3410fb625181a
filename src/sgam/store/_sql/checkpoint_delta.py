"""Which channels of a stored checkpoint LangGraph rebuilds from its ancestors, read from
the checkpoint's bytes without building any value.

A ``DeltaChannel`` stores its value only every so many steps (a ``_DeltaSnapshot``);
between them a checkpoint leaves the channel out of ``channel_values`` and a read
replays the pending writes of its ancestors, along ``parent_id``, back to the nearest
one that holds a value for it. So pruning a thread to its newest checkpoint must keep
that path, or the channel reads back empty without any error. LangGraph lists the delta
channels a checkpoint has not snapshotted in its metadata
(``counters_since_delta_snapshot``); those that also have a version and no stored value
are the ones the read replays (LangGraph's ``_delta_channels_to_replay``).

Bodies and metadata are the serializer's msgpack. Only the map keys are read here (a
value is skipped over, never decoded), so this needs neither LangGraph nor trust in
the bytes; anything it cannot read is reported as unknown, and the caller keeps what
it cannot prove unneeded.
"""

from __future__ import annotations

_FIXED = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8,
          0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
"""Scalars: nil, false, true, floats and sized integers, by the bytes after the tag."""
_SIZED = {0xC4: ("bytes", 1), 0xC5: ("bytes", 2), 0xC6: ("bytes", 4), 0xC7: ("ext", 1), 0xC8: ("ext", 2),
          0xC9: ("ext", 4), 0xD9: ("str", 1), 0xDA: ("str", 2), 0xDB: ("str", 4), 0xDC: ("array", 2),
          0xDD: ("array", 4), 0xDE: ("map", 2), 0xDF: ("map", 4)}
"""Values whose length (bytes, or entries) follows the tag in 1, 2 or 4 bytes."""


class Unreadable(Exception):
    """Bytes that are not the msgpack map expected."""


def _head(data: bytes, pos: int) -> tuple[str, int, int]:
    """(kind, size, where the value's own bytes start): ``size`` counts the entries of a
    map or an array and the bytes of anything else (0 for a scalar, whose bytes it skips)."""
    if pos >= len(data):
        raise Unreadable("truncated")
    tag = data[pos]
    if tag <= 0x7F or tag >= 0xE0:
        return "scalar", 0, pos + 1
    if tag <= 0x8F:
        return "map", tag & 0x0F, pos + 1
    if tag <= 0x9F:
        return "array", tag & 0x0F, pos + 1
    if tag <= 0xBF:
        return "str", tag & 0x1F, pos + 1
    if tag in _FIXED:
        return "scalar", 0, pos + 1 + _FIXED[tag]
    if 0xD4 <= tag <= 0xD8:  # fixext 1-16: a type byte, then 1, 2, 4, 8 or 16 bytes
        return "bytes", 1 + (1 << (tag - 0xD4)), pos + 1
    if tag not in _SIZED:
        raise Unreadable(f"tag {tag:#x}")
    kind, width = _SIZED[tag]
    size = int.from_bytes(data[pos + 1:pos + 1 + width], "big")
    if kind == "ext":  # a type byte, then the payload
        return "bytes", size + 1, pos + 1 + width
    return kind, size, pos + 1 + width


def _skip(data: bytes, pos: int) -> int:
    """Where the value at ``pos`` ends (iterative: nesting depth costs no recursion)."""
    pending = 1
    while pending:
        kind, size, pos = _head(data, pos)
        pending -= 1
        if kind == "map":
            pending += 2 * size
        elif kind == "array":
            pending += size
        else:
            pos += size
    if pos > len(data):
        raise Unreadable("truncated")
    return pos


def _entries(data: bytes, pos: int) -> dict[str, int]:
    """The string keys of the map at ``pos``, each with where its value starts."""
    kind, size, pos = _head(data, pos)
    if kind != "map":
        raise Unreadable("not a map")
    found: dict[str, int] = {}
    for _ in range(size):
        key_kind, length, start = _head(data, pos)
        value = _skip(data, pos)
        if key_kind == "str":
            try:
                found[data[start:start + length].decode()] = value
            except UnicodeDecodeError as error:
                raise Unreadable("key") from error
        pos = _skip(data, value)
    return found


def _keys(data: bytes, name: str) -> set[str]:
    """The keys of the map stored under ``name`` in the top-level map (none if absent)."""
    top = _entries(data, 0)
    return set(_entries(data, top[name])) if name in top else set()


def replayed(kind: str, body: bytes, metadata_kind: str, metadata: bytes) -> set[str] | None:
    """The delta channels this checkpoint's reader rebuilds from ancestors' writes;
    None when the bytes cannot tell (another serializer's, or damaged)."""
    if kind != "msgpack" or metadata_kind != "msgpack":
        return None
    try:
        counted = _keys(metadata, "counters_since_delta_snapshot")
        if not counted:
            return set()
        return (counted & _keys(body, "channel_versions")) - _keys(body, "channel_values")
    except Unreadable:
        return None


def held(kind: str, body: bytes) -> set[str]:
    """The channels this checkpoint stores a value for: where the ancestor walk of each
    stops. Nothing, when the bytes cannot tell (the walk then goes on past it)."""
    if kind != "msgpack":
        return set()
    try:
        return _keys(body, "channel_values")
    except Unreadable:
        return set()
