"""A PostgreSQL URL that cannot be used fails at once, in one line that names the cause."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from tests.conftest import PostgresUrls
from typer.testing import CliRunner

from sgam import Memory, StoreError
from sgam.cli import app
from sgam.store.postgres.connect import CONNECT_TIMEOUT


def with_parts(url: str, *, user: str | None = None, password: str | None = None,
               database: str | None = None) -> str:
    parts = urlsplit(url)
    login = f"{user or parts.username}:{password if password is not None else parts.password or ''}"
    host = f"{parts.hostname}:{parts.port}" if parts.hostname else ""
    path = f"/{database}" if database is not None else parts.path
    return urlunsplit((parts.scheme, f"{login}@{host}", path, parts.query, parts.fragment))


@pytest.fixture
def password_role(postgres_urls: PostgresUrls) -> Iterator[str]:
    """A role that must give its password (the test server trusts everyone else)."""
    role = "sgam_password_probe"
    with psycopg.connect(postgres_urls.server_admin, autocommit=True) as conn:
        row = conn.execute("SHOW hba_file").fetchone()
        assert row is not None
        hba = Path(row[0])
        original = hba.read_text(encoding="utf-8")
        conn.execute(f"DROP ROLE IF EXISTS {role}")
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'right-password'")
        hba.write_text(f"local all {role} scram-sha-256\nhost all {role} all scram-sha-256\n" + original,
                       encoding="utf-8")
        conn.execute("SELECT pg_reload_conf()")
        try:
            yield role
        finally:
            hba.write_text(original, encoding="utf-8")
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(f"DROP ROLE IF EXISTS {role}")


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts TCP connections and never says a word."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


def refused(url: str) -> str:
    with pytest.raises(StoreError) as caught:
        Memory(url)
    message = caught.value.message
    assert "\n" not in message and "secret" not in message
    return message


def test_a_closed_port_is_refused(closed_port: int) -> None:
    message = refused(f"postgresql://app:secret@127.0.0.1:{closed_port}/sgam")
    assert message == (f"cannot connect to PostgreSQL at app@127.0.0.1:{closed_port}/sgam: connection refused "
                       "(is PostgreSQL running there and accepting TCP/IP connections?)")


def test_an_unknown_host_is_named() -> None:
    assert refused("postgresql://app:secret@no-such-host.invalid/sgam").endswith(
        "unknown host no-such-host.invalid")


def test_a_server_that_never_answers_times_out(silent_server: int) -> None:
    assert refused(f"postgresql://app:secret@127.0.0.1:{silent_server}/sgam").endswith(
        f"no answer within {CONNECT_TIMEOUT} s")


def test_a_missing_database_is_named(postgres_urls: PostgresUrls) -> None:
    message = refused(with_parts(postgres_urls.app, database="no_such_database"))
    assert message.endswith("database 'no_such_database' does not exist on that server")


def test_a_wrong_password_is_named(postgres_urls: PostgresUrls, password_role: str) -> None:
    message = refused(with_parts(postgres_urls.app, user=password_role, password="wrong-password"))
    assert message.endswith(f"password authentication failed for user {password_role!r}")


def test_the_cli_prints_one_line_and_exits_6(closed_port: int) -> None:
    result = CliRunner().invoke(app, ["get", "-t", "acme", "mira", "city", "--db",
                                      f"postgresql://app:secret@127.0.0.1:{closed_port}/sgam"])
    assert result.exit_code == 6
    assert result.stderr.count("\n") == 1 and "connection refused" in result.stderr
    assert "pool" not in result.stderr
