"""Every psycopg error leaves the PostgreSQL backend as an sgam error, by one table."""

from __future__ import annotations

import inspect

import psycopg
import pytest
from psycopg import errors as pg
from tests.conftest import PostgresUrls

from sgam import BusyError, ConflictError, Memory, SgamError, StoreError
from sgam.store.postgres import PostgresBackend
from sgam.store.postgres.errors import DRIVER_ERRORS, RETRYABLE, map_postgres_errors, to_sgam

ALL_PSYCOPG_ERRORS = sorted(
    {cls for module in (psycopg, pg) for _, cls in inspect.getmembers(module, inspect.isclass)
     if issubclass(cls, psycopg.Error)},
    key=lambda cls: cls.__name__,
)


@pytest.mark.parametrize(("driver", "expected"), DRIVER_ERRORS, ids=lambda c: c.__name__)
def test_every_row_of_the_table_maps(driver: type[Exception], expected: type[SgamError]) -> None:
    with pytest.raises(expected) as caught, map_postgres_errors():
        raise driver("boom")
    assert isinstance(caught.value.__cause__, driver)


def test_no_row_is_shadowed_by_an_earlier_one() -> None:
    for index, (driver, _) in enumerate(DRIVER_ERRORS):
        earlier = [d for d, _ in DRIVER_ERRORS[:index]]
        assert not any(issubclass(driver, e) for e in earlier), driver


@pytest.mark.parametrize("driver", ALL_PSYCOPG_ERRORS, ids=lambda c: c.__name__)
def test_every_psycopg_error_class_is_mapped(driver: type[psycopg.Error]) -> None:
    assert isinstance(to_sgam(driver("boom")), SgamError)


def test_retryable_errors_are_retried_then_busy(postgres: PostgresUrls) -> None:
    backend = PostgresBackend(postgres.app, retries=3)
    attempts: list[int] = []

    def flaky(_: object) -> str:
        attempts.append(1)
        if len(attempts) < 3:
            raise pg.SerializationFailure("could not serialize")
        return "done"

    def hopeless(_: object) -> None:
        raise pg.DeadlockDetected("deadlock")

    try:
        assert backend.run_write("acme", flaky) == "done" and len(attempts) == 3
        with pytest.raises(BusyError):
            backend.run_write("acme", hopeless)
        with pytest.raises(StoreError):
            backend.run_write("acme", lambda txn: txn._pipe.cursor().execute("SELECT * FROM no_such_table"))
    finally:
        backend.close()
    assert pg.SerializationFailure in RETRYABLE


def test_database_invariants_back_the_rules(postgres: PostgresUrls) -> None:
    """Even a buggy caller cannot store a current version running past the next one's
    start, two current versions with one start, or edit history."""
    with psycopg.connect(postgres.app) as conn:
        conn.execute("SET LOCAL sgam.tenant = 'acme'")
        insert = ("INSERT INTO assertions (tenant, assertion_id, subject, attribute, value, memory_type, "
                  "valid_from, valid_to, recorded_from, recorded_to, source, confidence, schema_version, "
                  "origin) VALUES ('acme', %s, 'k', 'a', '1', 'fact', %s, %s, now() - interval '1 day', "
                  "%s, 'e', 1, 0, 'write')")
        conn.execute(insert, (1, "2026-01-01Z", "2026-03-01Z", None))
        for bad in ((2, "2025-12-01Z", None, None), (4, "2025-12-01Z", "2026-01-02Z", None),
                    (3, "2026-01-01Z", "2026-01-01Z", None), (5, "2026-01-01Z", "2026-02-01Z", None)):
            with pytest.raises(psycopg.IntegrityError) as caught, conn.transaction():
                conn.execute(insert, bad)
            with pytest.raises(ConflictError):
                raise to_sgam(caught.value)
        conn.execute("UPDATE assertions SET recorded_to = now() WHERE assertion_id = 1")
        with pytest.raises(psycopg.IntegrityError, match="only retiring"):
            conn.execute("UPDATE assertions SET value = '2' WHERE assertion_id = 1")


def test_a_closed_memory_says_so_on_postgres(postgres: PostgresUrls) -> None:
    memory = Memory(postgres.app)
    memory.close()
    with pytest.raises(StoreError) as caught:
        memory.get("acme", "mira", "city")
    assert "this Memory is closed" in caught.value.message
