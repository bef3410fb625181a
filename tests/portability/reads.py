"""What a tenant answers, as comparable data: its export's records without what belongs
to a store, and every read of its facts at every instant the export records."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sgam import Memory

INSTANT_FIELDS = ("recorded_at", "recorded_from", "recorded_to", "changed_at", "declared_at", "ended_at")


def records(path: Path) -> list[str]:
    """The file's records, header and closing record left out (they name the store)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return lines[1:-1]


def recorded_instants(path: Path) -> list[str]:
    found: set[str] = set()
    for line in records(path):
        row = json.loads(line)["row"]
        found.update(str(row[name]) for name in INSTANT_FIELDS if row.get(name))
    return sorted(found)


def _without_ids(fact: Any) -> dict[str, Any]:
    data = asdict(fact)
    data.pop("id", None)
    data.pop("supersedes", None)
    return {key: (value.isoformat() if hasattr(value, "isoformat") else value) for key, value in data.items()}


def reads(memory: Memory, tenant: str, instants: list[str]) -> dict[str, list[dict[str, Any]]]:
    """Every assertion known at each instant (and now), over all valid times; the ids are
    the store's own and left out."""
    answers: dict[str, list[dict[str, Any]]] = {}
    for known_at in [*instants, None]:
        facts: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = memory.query(tenant, known_at=known_at, all_times=True, limit=500, cursor=cursor)
            facts.extend(_without_ids(fact) for fact in page)
            cursor = page.next_cursor
            if cursor is None:
                break
        answers[str(known_at)] = facts
    answers["episodes"] = [_without_ids(episode) for episode in memory.episodes(tenant, limit=1000)]
    return answers
