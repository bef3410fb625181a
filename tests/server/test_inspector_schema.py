"""The inspector's schema page: attributes as declared now, the history of migration
steps (who, when, from which file) and what retypes set aside."""

from __future__ import annotations

import html

from .conftest import Served
from .test_inspector_http import signed_in


def test_the_schema_page_shows_attributes_steps_and_the_quarantine(served: Served) -> None:
    memory = served.memory
    memory.declare("acme", "budget", "string")
    memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "budgets")
    memory.write("acme", "p1", "budget", "lots", "2026-06-01T00:00:00Z", "e1")
    memory.write("acme", "p1", "budget", "250", "2026-06-02T00:00:00Z", "e1")
    memory.retype("acme", "budget", "integer", quarantine=True, decided_by="ops")
    memory.rename_attribute("acme", "budget", "spend")
    with signed_in(served, scope="read") as reader:
        page = html.unescape(reader.get("/ui/schema").text)
    assert 'href="/ui/schema"' in page
    assert "renamed to <code>spend</code>" in page
    assert "retype</strong> of <code>budget</code> to integer (quarantine)" in page and "by ops" in page
    assert "rename</strong> of <code>budget</code> to <code>spend</code>" in page
    assert '<code>"lots"</code>' in page and "Nothing set aside" not in page
