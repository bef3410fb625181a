"""``sgam residue`` is clean after each erasure that used to leave a copy behind: a
document's text in stored idempotent responses, an episode's text in checkpoint
threads, a subject's value in a retype's map. The command exits 1 before the erasure
(so it can see the copy) and 0 after it."""

from __future__ import annotations

from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app

from ..server.conftest import serve
from .test_checkpoint_episodes import TEXT, _threads
from .test_document_responses import SECRET, _post
from .test_retype_maps import SECRET as BUDGET
from .test_retype_maps import _retyped

T1 = "2026-06-01T09:00:00Z"


def _residue(store_url: str, tenant: str, text: str) -> int:
    result = CliRunner().invoke(app, ["residue", text, "--tenant", tenant, "--db", store_url])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code


def test_residue_is_clean_after_erasing_a_document_with_stored_responses(store_url: str) -> None:
    with Memory(store_url) as memory, serve(memory) as served:
        with served.client("acme", "write") as client:
            body = {"path": "/memories/notes.md", "file_text": f"Mira's {SECRET}"}
            assert _post(client, "create", "k1", body).status_code == 201
            assert _post(client, "tool", "k2", {"command": "view", "path": "/memories/notes.md"}).status_code == 200
        assert _residue(store_url, "acme", SECRET) == 1
        erased = CliRunner().invoke(app, ["docs", "erase", "/memories/notes.md", "--tenant", "acme",
                                          "--db", store_url])
        assert erased.exit_code == 0, erased.output
        memory.purge_residue()
    assert _residue(store_url, "acme", SECRET) == 0


def test_residue_is_clean_after_erasing_an_episode_a_thread_quoted(store_url: str) -> None:
    with Memory(store_url) as memory:
        memory.add_episode("acme", "e1", T1, TEXT)
        _threads(memory)
    assert _residue(store_url, "acme", "qx-4417-vault") == 1
    result = CliRunner().invoke(app, ["forget", "--episode", "e1", "--tenant", "acme", "--db", store_url])
    assert result.exit_code == 0, result.output
    with Memory(store_url) as memory:
        memory.purge_residue()
    assert _residue(store_url, "acme", "qx-4417-vault") == 0


def test_residue_is_clean_after_erasing_a_subject_a_retype_map_named(store_url: str) -> None:
    with Memory(store_url) as memory:
        _retyped(memory)
    assert _residue(store_url, "t", BUDGET) == 1
    result = CliRunner().invoke(app, ["forget", "--subject", "mira", "--tenant", "t", "--db", store_url])
    assert result.exit_code == 0, result.output
    with Memory(store_url) as memory:
        memory.purge_residue()
    assert _residue(store_url, "t", BUDGET) == 0
