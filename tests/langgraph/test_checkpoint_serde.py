"""The strict serializer loads back before storing only what could be refused: values
with a msgpack extension type. Plain data, whatever bytes its text or numbers hold, is
stored and read as it is; a blocked type is refused at put and at read."""

from __future__ import annotations

import dataclasses

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from sgam import ValidationError
from sgam.langgraph._serde import StrictSerializer


@dataclasses.dataclass
class Note:
    text: str


PLAIN = [
    None, b"\xc7\xd4 raw bytes", bytearray(b"\xc8"),
    {"messages": ["אבג ǅ ט", "the quarterly numbers look fine"], "counter": 0xC8D4, "ratio": -1.5e300},
    [200, 212, 213, 214, 215, 216, 199, 201, 2**40 + 0xD8, "Ø"],
]


@pytest.mark.parametrize("value", PLAIN)
def test_plain_values_round_trip_whatever_bytes_they_hold(value: object) -> None:
    serde = StrictSerializer()
    assert serde.loads_typed(serde.dumps_typed(value)) == value


def test_a_value_with_an_undeclared_type_is_refused_at_put_wherever_it_sits() -> None:
    with pytest.raises(ValidationError, match="Note"):
        StrictSerializer().dumps_typed({"plain": "text", "deep": [1, {"note": Note("q3")}]})
    declared = StrictSerializer([Note])
    assert declared.loads_typed(declared.dumps_typed({"deep": [Note("q3")]})) == {"deep": [Note("q3")]}


def test_a_blob_of_a_laxer_writer_is_read_only_when_plain() -> None:
    lax = JsonPlusSerializer()
    strict = StrictSerializer()
    assert strict.loads_typed(lax.dumps_typed({"counter": 3, "text": "אב"})) == {"counter": 3, "text": "אב"}
    with pytest.raises(ValidationError, match="Note"):
        strict.loads_typed(lax.dumps_typed([Note("q3")]))
    with pytest.raises(ValidationError, match="pickle"):
        strict.loads_typed(("pickle", b"\x80\x04K\x01."))
