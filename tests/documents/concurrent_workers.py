"""Workers for the multi-process document tests (importable by spawned processes)."""

from __future__ import annotations

import re

from sgam import ConflictError, Memory
from sgam.tools import MemoryTool

PATHS = {"blind": "/memories/blind.md", "checked": "/memories/checked.md", "counter": "/memories/counter.md"}
TENANT = "acme"


def work(kind: str, url: str, worker: str, steps: int) -> int:
    return {"blind": blind_inserts, "checked": revision_checked_appends, "counter": tool_counter}[kind](
        url, worker, steps)


def blind_inserts(url: str, worker: str, steps: int) -> int:
    """Insert a line at the top, never reading first: the store serialises the edits."""
    with Memory(url) as memory:
        for step in range(steps):
            memory.documents.insert(TENANT, PATHS["blind"], 0, f"{worker}-{step}")
    return steps


def revision_checked_appends(url: str, worker: str, steps: int) -> int:
    """Read, append a line, write naming the revision read; retry when someone moved on.
    Returns how many conflicts it saw."""
    conflicts = 0
    with Memory(url) as memory:
        for step in range(steps):
            while True:
                document = memory.documents.read(TENANT, PATHS["checked"])
                try:
                    memory.documents.write(TENANT, PATHS["checked"], document.content + f"{worker}-{step}\n",
                                           expected_revision=document.revision)
                    break
                except ConflictError:
                    conflicts += 1
    return conflicts


def tool_counter(url: str, worker: str, steps: int) -> int:
    """Increment a counter through the memory tool only: view, then str_replace the old
    value; a str_replace built on a stale view finds no match and is retried."""
    misses = 0
    with Memory(url) as memory:
        tool = MemoryTool(memory, TENANT, author=worker)
        for _ in range(steps):
            while True:
                view = tool.run({"command": "view", "path": PATHS["counter"]}).text
                found = re.search(r"count: (\d+)", view)
                assert found is not None
                count = int(found.group(1))
                result = tool.run({"command": "str_replace", "path": PATHS["counter"], "old_str": f"count: {count}\n",
                                   "new_str": f"count: {count + 1}\n"})
                if not result.is_error:
                    break
                misses += 1
    return misses
