"""``forget_subject`` finds raw replies by their decoded content: servers often send
non-ASCII text as JSON escapes (``"zo\\u00eb"`` for ``zoë``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sgam import Memory
from sgam.extraction import ExtractionPolicy, ScriptedClient

TEXT = "Zoë drinks qx-matcha-41 daily."
UPDATE = {"evidence": TEXT, "subject": "zoë", "attribute": "drink", "current_value": None,
          "change": "new", "value": "qx-matcha-41", "valid_from": None, "confidence": 0.9}

REPLIES = {
    "ascii-escaped JSON": json.dumps({"updates": [UPDATE]}, ensure_ascii=True),
    "upper-case escapes": json.dumps({"updates": [UPDATE]}, ensure_ascii=True).replace("\\u00eb", "\\u00EB"),
    "every letter escaped": json.dumps({"updates": [UPDATE]}).replace("zoë", "\\u007a\\u006f\\u00eb"),
    "JSON not of the schema": json.dumps({"updates": [{"subject": "zoë", "value": "qx-matcha-41"}]}),
    "broken JSON": 'sure! {"subject": "zo\\u00eb", "value": "qx-matcha-41"',
}


@pytest.mark.parametrize("reply", REPLIES.values(), ids=REPLIES.keys())
def test_forget_subject_drops_replies_that_name_it_in_escapes(memory: Memory, reply: str) -> None:
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", TEXT)
    memory.add_episode("acme", "e2", "2026-06-01T09:00:00Z", "Other people exist.")
    other = json.dumps({"updates": [], "note": "caf\\u00e9"})
    memory.extract("acme", "e2", client=ScriptedClient.of([other]), policy=ExtractionPolicy.off())
    try:
        memory.extract("acme", "e1", client=ScriptedClient.of([reply]), policy=ExtractionPolicy.off())
    except ValueError:
        pass  # the broken reply: recorded as a failure
    (record,) = memory.extractions("acme", episode="e1")
    assert record.raw_reply == reply
    memory.forget_subject("acme", "zoë")
    (record,) = memory.extractions("acme", episode="e1")
    assert record.raw_reply is None and record.decisions == []
    assert "qx-matcha-41" not in repr(memory.extractions("acme"))
    # a reply with escapes that does not name the subject stays
    (kept,) = memory.extractions("acme", episode="e2")
    assert kept.raw_reply == other


def test_the_erased_reply_leaves_the_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "sgam.db"
    with Memory(f"sqlite:///{path}") as memory:
        memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", "Zoë drinks tea.")
        reply = json.dumps({"updates": [{**UPDATE, "evidence": "Zoë drinks tea."}]}, ensure_ascii=True)
        memory.extract("acme", "e1", client=ScriptedClient.of([reply]), policy=ExtractionPolicy.off())
        assert memory.forget_subject("acme", "zoë").residue is None
    assert all(b"qx-matcha-41" not in p.read_bytes() for p in tmp_path.glob("sgam.db*"))
