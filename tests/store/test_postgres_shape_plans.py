"""On PostgreSQL, who names a subject (``linked``) and a set's members are index ranges:
``assertions_by_value`` (``COLLATE "C"`` on the attribute, which the statement names)
and the subject's current versions (``assertions_current``), never a scan of the tenant."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pytest
from tests.citus import not_on_citus
from tests.conftest import HashingEmbedder, PostgresUrls

from sgam import Memory
from sgam.store import ReadAhead
from sgam.store._sql.dialect import POSTGRES
from sgam.store.postgres.adapters import configure
from sgam.store.postgres.session import PostgresSession

T1 = "2026-01-01T00:00:00Z"
PLAN_ON_ONE_SERVER = not_on_citus(
    "the plans checked are one server's: Citus plans each tenant's statement on the worker's shard "
    "(a few rows, which any plan reads in a moment), and explains no generic plan of a distributed statement")


def test_linked_and_members_read_their_indexes(postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch) -> None:
    with Memory(postgres.app) as memory:
        memory.add_episode("t", "e1", T1, "suppliers")
        memory.declare("t", "supplier", "subject", cardinality="many")
        memory.write_many("t", [{"subject": f"buyer{i}", "attribute": "supplier", "value": f"s{i % 7}",
                                 "valid_from": T1, "source": "e1"} for i in range(300)])
        sent: list[tuple[str, Any]] = []
        run, answer = PostgresSession._run, PostgresSession.answer

        def wanted(sql: str, params: Any) -> None:
            if "assertions_by_value" in sql or "INDEXED BY assertions_current WHERE a.tenant = ? AND a.subject" in sql:
                sent.append((sql, params))

        def record(self: PostgresSession, sql: str, params: Any) -> Any:
            wanted(sql, params)
            return run(self, sql, params)

        def record_sent(self: PostgresSession, request: ReadAhead, sql: str, params: Any = ()) -> Any:
            if request in self.ahead:  # sent ahead (``Reader.prefetch``): answered without ``_run``
                wanted(sql, params)
            return answer(self, request, sql, params)

        monkeypatch.setattr(PostgresSession, "_run", record)
        monkeypatch.setattr(PostgresSession, "answer", record_sent)
        assert len(memory.linked("t", "supplier", "s3")) == 43
        assert [m.value for m in memory.members("t", "buyer3", "supplier")] == ["s3"]
    assert len(sent) == 2
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        configure(conn)
        conn.execute("ANALYZE assertions")
        conn.execute("ANALYZE ledger_keys")
        conn.execute("SET enable_seqscan = off")  # a small table: is there a plan that reads no table whole?
        for sql, params in sent:
            plan = " ".join(str(row[0]) for row in conn.execute(f"EXPLAIN {POSTGRES.native(sql)}", params).fetchall())
            assert "Seq Scan on assertions" not in plan and "Seq Scan on ledger_keys" not in plan, plan
            assert "assertions_by_value" in plan or "assertions_current" in plan, plan


@PLAN_ON_ONE_SERVER
def test_the_names_a_question_could_mean_are_looked_up_by_index(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recall asks which runs of a question's words are subjects: the key table by subject,
    and ``assertions_by_value`` for a subject only a relation names, never a scan."""
    from sgam.recall.subjects import named_subjects

    with Memory(postgres.app) as memory:
        memory.add_episode("t", "e1", T1, "suppliers")
        memory.declare("t", "supplier", "subject", cardinality="many")
        memory.declare("t", "owner", "subject")
        memory.write_many("t", [{"subject": f"buyer{i}", "attribute": "supplier", "value": f"s{i % 7}",
                                 "valid_from": T1, "source": "e1"} for i in range(300)])
        memory.write("t", "buyer1", "owner", "mira", T1, "e1")
        sent: list[tuple[str, Any]] = []
        run = PostgresSession._run

        def record(self: PostgresSession, sql: str, params: Any) -> Any:
            if "FROM ledger_keys WHERE" in sql or "SELECT DISTINCT value FROM assertions" in sql:
                sent.append((sql, params))
            return run(self, sql, params)

        monkeypatch.setattr(PostgresSession, "_run", record)
        relations = [s for s in memory.schema("t")[0] if s.value_type == "subject"]
        with memory.ledger.read("t", "test") as reader:
            assert named_subjects(reader, "Does buyer7 buy from s3 like Mira?", relations) == ["buyer7", "s3", "mira"]
    assert len(sent) == 2
    with psycopg.connect(postgres.admin, autocommit=True) as conn:
        configure(conn)
        conn.execute("ANALYZE assertions")
        conn.execute("ANALYZE ledger_keys")
        conn.execute("SET enable_seqscan = off")
        for sql, params in sent:
            plan = " ".join(str(row[0]) for row in conn.execute(f"EXPLAIN {POSTGRES.native(sql)}", params).fetchall())
            assert "Seq Scan on assertions" not in plan and "Seq Scan on ledger_keys" not in plan, plan


def _scans(node: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of a JSON plan that reads a relation."""
    found = [node] if "Relation Name" in node else []
    for child in node.get("Plans", []):
        found += _scans(child)
    return found


@PLAN_ON_ONE_SERVER
def test_linked_probes_its_keys_on_a_table_without_statistics(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bulk-loaded moments ago, before autovacuum has analysed it, the table has no
    statistics. ``linked``'s statement, custom and generic plan, must still read only
    the range of ``assertions_by_value`` and probe each holder's own key: every read of
    ``assertions`` bounded by the value or by the subject, none by the tenant alone."""
    with Memory(postgres.app) as memory:
        memory.add_episode("t", "e1", T1, "suppliers")
        memory.declare("t", "supplier", "subject", cardinality="many")
        memory.write_many("t", [{"subject": f"c{i}", "attribute": "supplier", "value": f"c{(i * 7 + k) % 2000}",
                                 "valid_from": T1, "source": "e1"} for i in range(2000) for k in (1, 2, 3)])
        sent: list[tuple[str, Any]] = []
        run = PostgresSession._run

        def record(self: PostgresSession, sql: str, params: Any) -> Any:
            if "assertions_by_value" in sql:
                sent.append((sql, params))
            return run(self, sql, params)

        monkeypatch.setattr(PostgresSession, "_run", record)
        assert memory.linked("t", "supplier", "c10") == ["c1", "c1144", "c287"]  # 7i + k = 10 (mod 2000)
    (sql, params), = sent
    plans = _plans_without_statistics(postgres, sql, params)
    for plan in plans:
        scans = [node for node in _scans(plan) if node["Relation Name"] == "assertions"]
        assert len(scans) == 2, plan
        for scan in scans:
            bound = scan.get("Index Cond", "")
            assert "value =" in bound or "subject = a.subject" in bound, plan
        assert "assertions_by_value" in {scan.get("Index Name") for scan in scans}, plan


def _plans_without_statistics(postgres: PostgresUrls, sql: str, params: Any) -> list[dict[str, Any]]:
    """The custom and the generic plan of ``sql`` as the application role, with
    ``assertions``' statistics cleared (as after a bulk load autovacuum has not yet
    analysed), in a transaction rolled back so that the statistics return."""
    numbered = iter(range(1, len(params) + 1))
    generic = re.sub("%s", lambda _: f"${next(numbered)}", POSTGRES.native(sql))
    with psycopg.connect(postgres.admin) as conn:
        configure(conn)
        conn.execute("SELECT pg_clear_relation_stats('public', 'assertions')")
        conn.execute("SELECT pg_clear_attribute_stats('public', 'assertions', attname, false) FROM pg_attribute "
                     "WHERE attrelid = 'assertions'::regclass AND attnum > 0 AND NOT attisdropped")
        assert conn.execute("SELECT reltuples FROM pg_class WHERE relname = 'assertions'").fetchone() == (-1,)
        conn.execute(psycopg.sql.SQL("SET LOCAL ROLE {}").format(psycopg.sql.Identifier(_role(postgres.app))))
        conn.execute("SET LOCAL sgam.tenant = 't'")
        plans = [conn.execute(f"EXPLAIN (FORMAT JSON) {POSTGRES.native(sql)}", params).fetchone(),
                 conn.execute(f"EXPLAIN (GENERIC_PLAN, FORMAT JSON) {generic}").fetchone()]
        conn.rollback()
    found = []
    for plan in plans:
        assert plan is not None
        found.append(plan[0][0]["Plan"])
    return found


def _role(url: str) -> str:
    return urlsplit(url).username or ""


def _load_cities(memory: Memory) -> None:
    """3,000 keys of three versions each, written at once: a table without statistics."""
    memory.add_episode("t", "e1", T1, "moves")
    memory.write_many("t", [{"subject": f"p{i}", "attribute": "city", "value": f"town{(i + year) % 50}",
                             "valid_from": f"{year}-01-01T00:00:00Z", "source": "e1"}
                            for i in range(3000) for year in (2020, 2021, 2022)])


def _assert_each_version_probes_its_key(plan: dict[str, Any]) -> None:
    """Every read of a later version (alias ``n``) is bound to the version's own key (its
    subject, or the subject of the key table's row it was found by)."""
    probes = [node for node in _scans(plan) if node["Relation Name"] == "assertions" and node["Alias"][0] == "n"]
    assert probes, plan
    for probe in probes:
        assert re.search(r"subject = [a-z]\.subject", probe.get("Index Cond", "")), plan


def _recorded(monkeypatch: pytest.MonkeyPatch, marker: str) -> list[tuple[str, Any]]:
    """The statements containing ``marker`` that the store runs or sends ahead, from now on."""
    sent: list[tuple[str, Any]] = []
    run, answer = PostgresSession._run, PostgresSession.answer

    def record(self: PostgresSession, sql: str, params: Any) -> Any:
        if marker in sql:
            sent.append((sql, params))
        return run(self, sql, params)

    def record_sent(self: PostgresSession, request: ReadAhead, sql: str, params: Any = ()) -> Any:
        if request in self.ahead and marker in sql:
            sent.append((sql, params))
        return answer(self, request, sql, params)

    monkeypatch.setattr(PostgresSession, "_run", record)
    monkeypatch.setattr(PostgresSession, "answer", record_sent)
    return sent


@PLAN_ON_ONE_SERVER
def test_query_at_an_instant_probes_each_key_on_a_table_without_statistics(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``query`` with ``at`` asks, per version in the attribute's range, whether a later
    version of its key had started: one probe of that key, not the attribute's whole range."""
    with Memory(postgres.app) as memory:
        _load_cities(memory)
        sent = _recorded(monkeypatch, "FROM assertions n")
        found = memory.query("t", attribute="city", at="2021-06-01T00:00:00Z", limit=5)
    assert [(a.subject, a.value) for a in found] == [("p0", "town21"), ("p1", "town22"), ("p10", "town31"),
                                                     ("p100", "town21"), ("p1000", "town21")]  # 2021's
    (sql, params), = sent
    for plan in _plans_without_statistics(postgres, sql, params):
        _assert_each_version_probes_its_key(plan)


@PLAN_ON_ONE_SERVER
def test_fact_search_reads_versions_by_key_on_a_table_without_statistics(
    postgres: PostgresUrls, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recall's fact searches, by the words of a key and by vector, test each version
    found for a later one by a probe of its key; a vector's version is read by the
    primary key, not by the tenant's range of versions."""
    with Memory(postgres.app, embedder=HashingEmbedder()) as memory:
        _load_cities(memory)
        sent = _recorded(monkeypatch, "FROM assertions n")
        memory.recall("t", "which city is p7 in", at="2021-06-01T00:00:00Z")
        memory.recall("t", "town7", at="2021-06-01T00:00:00Z")
    by_words = [(sql, params) for sql, params in sent if "ledger_keys" in sql]
    by_vector = [(sql, params) for sql, params in sent if "assertion_vectors" in sql]
    assert by_words and by_vector
    for sql, params in by_words:
        for plan in _plans_without_statistics(postgres, sql, params):
            _assert_each_version_probes_its_key(plan)
    for sql, params in by_vector:
        for plan in _plans_without_statistics(postgres, sql, params):
            _assert_each_version_probes_its_key(plan)
            found = [node for node in _scans(plan) if node["Relation Name"] == "assertions" and node["Alias"][0] != "n"]
            assert len(found) == 1 and "row_id = v.row_id" in found[0].get("Index Cond", ""), plan
