"""The Citus test mode: ``SGAM_TEST_CITUS_URL`` names a coordinator's owner URL (a superuser
on a database where the ``citus`` extension is created and the workers are added). The
PostgreSQL suite then runs on a database made for it on every node, its tables
distributed by tenant (``sgam migrate --distributed``); without the variable the tests
that need Citus are skipped with one line saying so."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from psycopg import sql

CITUS_URL = os.environ.get("SGAM_TEST_CITUS_URL") or None
NO_CITUS = "SGAM_TEST_CITUS_URL is not set: no Citus coordinator to run the Citus tests on"
needs_citus = pytest.mark.skipif(CITUS_URL is None, reason=NO_CITUS)
TEST_SHARDS = 4
"""Shards per distributed table in the test database (Citus's default is 32): every test
empties every table, and a TRUNCATE reaches each shard."""


def workers(coordinator_url: str) -> list[tuple[str, int]]:
    """The active primary workers registered on the coordinator at ``coordinator_url``."""
    with psycopg.connect(coordinator_url, autocommit=True) as conn:
        rows = conn.execute("SELECT nodename, nodeport FROM pg_dist_node "
                            "WHERE noderole = 'primary' AND isactive AND groupid <> 0 ORDER BY nodeid").fetchall()
    return [(str(host), int(port)) for host, port in rows]


def on_node(url: str, host: str, port: int, dbname: str | None = None) -> str:
    """``url`` with another host and port (and database): the same login on another node."""
    parts = urlsplit(url)
    auth = parts.netloc.rpartition("@")[0]
    path = parts.path if dbname is None else "/" + dbname
    return urlunsplit((parts.scheme, f"{auth}@{host}:{port}", path, parts.query, parts.fragment))


def create_database(coordinator_url: str, name: str, roles: dict[str, str]) -> None:
    """(Re)create database ``name`` on the coordinator and every worker with the ``citus``
    extension, the workers added to the new database's coordinator, and each login role of
    ``roles`` (name → password) present on every node (a worker checks a connection's role
    itself)."""
    nodes = workers(coordinator_url)
    coordinator = urlsplit(coordinator_url)
    everywhere = [coordinator_url, *(on_node(coordinator_url, host, port) for host, port in nodes)]
    for url in everywhere:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET citus.enable_create_role_propagation = off")
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            for role, password in roles.items():
                if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                    conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS PASSWORD {}")
                                 .format(sql.Identifier(role), sql.Literal(password)))
        parts = urlsplit(url)
        with psycopg.connect(urlunsplit(parts._replace(path="/" + name)), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION citus")
            conn.execute(sql.SQL("ALTER DATABASE {} SET citus.shard_count = {}").format(
                sql.Identifier(name), sql.Literal(TEST_SHARDS)))
    with psycopg.connect(urlunsplit(coordinator._replace(path="/" + name)), autocommit=True) as conn:
        conn.execute("SELECT citus_set_coordinator_host(%s, %s)",
                     (coordinator.hostname or "localhost", coordinator.port or 5432))
        for host, port in nodes:
            conn.execute("SELECT citus_add_node(%s, %s)", (host, port))


def not_on_citus(reason: str) -> pytest.MarkDecorator:
    """Skip a test on a Citus cluster for ``reason``: what it checks is not there on Citus
    (a single server's plan or process), never an answer that differs."""
    return pytest.mark.skipif(CITUS_URL is not None, reason=f"not on Citus: {reason}")


def every_node(url: str) -> list[str]:
    """``url`` (an owner URL of the test database), and on Citus the same login and database
    on every worker: where the rows, their files and their statistics are."""
    return [url] if CITUS_URL is None else [url, *(on_node(url, host, port) for host, port in workers(url))]
