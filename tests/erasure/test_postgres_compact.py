"""PostgreSQL erasure residue: the erased bytes stay in table and index files until
``sgam compact`` rewrites the tables; checked by scanning the data directory."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from typer.testing import CliRunner

from sgam import Memory
from sgam.cli import app
from sgam.extraction import ExtractionPolicy, ScriptedClient
from sgam.langgraph import SgamStore
from sgam.store.postgres.migrations import TENANT_TABLES
from tests.citus import CITUS_URL, every_node
from tests.conftest import PostgresUrls
from tests.langgraph.conftest import LetterEmbeddings

MARKERS = {name: f"zq{name}marker" for name in (
    "text", "value", "speaker", "session", "meta", "reply", "subject", "item", "itemkey", "itemns")}
CONTENT_FREE_TABLES = {"sgam_migrations", "vector_dimensions"}


def _files_with(admin: str, markers: dict[str, str]) -> dict[str, list[str]]:
    """Which of the database's own files (heap, index, TOAST) hold each marker, after a
    checkpoint has written every dirty page out; on Citus, those of every node (the
    workers hold the rows; their data directories are on this machine)."""
    found: dict[str, list[str]] = {}
    for url in every_node(admin):
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CHECKPOINT")
            row = conn.execute(
                "SELECT current_setting('data_directory'), oid FROM pg_database WHERE datname = current_database()"
            ).fetchone()
        assert row is not None
        folder = Path(row[0]) / "base" / str(row[1])
        for path in folder.iterdir():
            if path.is_file():
                data = path.read_bytes()
                for name, marker in markers.items():
                    if marker.encode() in data:
                        found.setdefault(name, []).append(f"{url.rpartition('@')[2]}: {path.name}")
    return found


def _plant(memory: Memory) -> None:
    m = MARKERS
    text = f"{m['subject']} said {m['text']} about {m['value']}."
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", text, speaker=m["speaker"],
                       session=m["session"], metadata={"note": m["meta"]})
    memory.add_episode("acme", "e2", "2026-06-01T09:00:00Z", "someone likes tea.")  # stays
    reply = {"updates": [{"evidence": text, "subject": m["subject"], "attribute": "code", "change": "new",
                          "value": m["value"], "confidence": 0.9, "note": m["reply"]}]}
    memory.extract("acme", "e1", client=ScriptedClient.of([json.dumps(reply)]), policy=ExtractionPolicy.off())
    memory.write("acme", m["subject"], "drink", "tea", "2026-06-01T09:00:00Z", "e2")
    embeddings = LetterEmbeddings()
    items = SgamStore(memory, tenant="acme", index={"dims": embeddings.dims, "embed": embeddings})
    items.put((m["itemns"],), m["itemkey"], {"text": f"the vault code is {m['item']}"})
    items.put(("kept",), "k", {"text": "stays"})


def _forget_item(memory: Memory) -> None:
    SgamStore(memory, tenant="acme").forget((MARKERS["itemns"],), MARKERS["itemkey"])


def test_compact_removes_erased_bytes_from_the_data_directory(postgres: PostgresUrls) -> None:
    with Memory(postgres.app) as memory:
        _plant(memory)
        assert set(_files_with(postgres.admin, MARKERS)) == set(MARKERS)
        assert memory.forget_episode("acme", "e1").residue is not None
        result = memory.forget_subject("acme", MARKERS["subject"])
        assert result.residue is not None and "sgam compact" in result.residue
        _forget_item(memory)
        assert memory.episode("acme", "e2") is not None
    outcome = CliRunner().invoke(app, ["compact", "--db", postgres.admin])
    assert outcome.exit_code == 0, outcome.output
    assert "extractions" in outcome.stdout and "store_items" in outcome.stdout
    assert _files_with(postgres.admin, MARKERS) == {}
    with Memory(postgres.app) as memory:  # the rest is intact
        assert memory.episode("acme", "e2") is not None
        assert SgamStore(memory, tenant="acme").get(("kept",), "k") is not None


@pytest.mark.parametrize("emptied", [False, True])
def test_compact_removes_erased_values_the_planner_sampled(postgres: PostgresUrls, emptied: bool) -> None:
    """ANALYZE (autovacuum's, whenever a table has changed enough) keeps samples of column
    values in ``pg_statistic``. Compact's own ANALYZE replaces a table's, leaving the old
    rows there as dead tuples unless that catalog is rewritten too; and of a table the
    erasure ``emptied`` it keeps them, live, unless they are cleared. Before, whether a
    marker survived compaction depended on whether autovacuum had analyzed its table."""
    with Memory(postgres.app) as memory:
        _plant(memory)
        for url in every_node(postgres.admin):  # as autovacuum would, where the rows are
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("ANALYZE")
        sampled = 0
        for url in every_node(postgres.admin):  # on Citus, the workers sample their shards
            with psycopg.connect(url) as conn:
                if CITUS_URL is not None:  # a worker hides its shards from the catalogs unless asked
                    conn.execute("SET citus.show_shards_for_app_name_prefixes = '*'")
                row = conn.execute("SELECT count(*) FROM pg_stats WHERE most_common_vals::text LIKE '%zq%marker%' "
                                   "OR histogram_bounds::text LIKE '%zq%marker%'").fetchone()
            assert row is not None
            sampled += row[0]
        assert sampled > 0
        memory.forget_episode("acme", "e1")
        memory.forget_subject("acme", MARKERS["subject"])
        _forget_item(memory)
        if emptied:  # the last item's ledger key goes too: no version of any key is left
            SgamStore(memory, tenant="acme").forget(("kept",), "k")
    with psycopg.connect(postgres.admin) as conn:
        versions = conn.execute("SELECT count(*) FROM assertions").fetchone()
    assert versions is not None and (versions[0] == 0) == emptied
    outcome = CliRunner().invoke(app, ["compact", "--db", postgres.admin])
    assert outcome.exit_code == 0, outcome.output
    assert "pg_statistic" in outcome.stdout
    assert _files_with(postgres.admin, MARKERS) == {}


def test_compact_by_a_role_that_may_not_rewrite_the_statistics_rewrites_nothing(postgres: PostgresUrls) -> None:
    """The application role owns no table; a role that owns the tables but not the
    database is refused the same way, before any table is rewritten, rather than leaving
    the samples behind with only a server warning."""
    with Memory(postgres.app) as memory:
        memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", "text")

    def files() -> list[int]:
        with psycopg.connect(postgres.admin) as conn:
            return [int(row[0]) for row in conn.execute(
                "SELECT relfilenode FROM pg_class WHERE relname IN ('episodes', 'pg_statistic') ORDER BY relname")]

    before = files()
    outcome = CliRunner().invoke(app, ["compact", "--db", postgres.app])
    assert outcome.exit_code == 6 and "pg_statistic" in outcome.output and "owner" in outcome.output, outcome.output
    assert files() == before


def test_compact_rewrites_every_table_that_can_hold_tenant_content(postgres: PostgresUrls) -> None:
    """Every table with tenant rows is a tenant table, and compact rewrites them all; the
    rest of sgam's tables hold no content of any tenant."""
    with psycopg.connect(postgres.admin) as conn:
        tables = {row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
            "AND table_type = 'BASE TABLE'")}
        with_tenant = {row[0] for row in conn.execute(
            "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND column_name = 'tenant'")}
    assert with_tenant == set(TENANT_TABLES)
    assert tables - set(TENANT_TABLES) == CONTENT_FREE_TABLES


def test_compact_on_sqlite_says_what_remains(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sgam.db'}"
    with Memory(url) as memory:
        memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", "text")
    outcome = CliRunner().invoke(app, ["compact", "--db", url, "--wait", "0"])
    assert outcome.exit_code == 0 and "WAL is empty" in outcome.stdout


def test_compact_reads_the_database_url_from_the_environment_as_every_command(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sgam.db'}"
    with Memory(url) as memory:
        memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", "text")
    outcome = CliRunner().invoke(app, ["compact", "--wait", "0"], env={"SGAM_DATABASE_URL": url})
    assert outcome.exit_code == 0 and "WAL is empty" in outcome.stdout, outcome.output
    missing = tmp_path / "typo.db"
    outcome = CliRunner().invoke(app, ["compact"], env={"SGAM_DATABASE_URL": f"sqlite:///{missing}"})
    assert outcome.exit_code != 0 and "does not exist" in outcome.output and not missing.exists()
