"""Map psycopg exceptions to sgam errors at the boundary, with one table.

The first matching row wins, so specific SQLSTATE classes come before their parents.
A pool that gives no connection in time is ``BusyError`` (a 503: try again), not a
refused change. Which failures are worth retrying lives here too: serialisation failures and deadlocks,
and the integrity errors a concurrent transaction can cause between our check and our
insert (a duplicate episode id, a source episode erased meanwhile). Re-running the unit
of work turns those into the ordinary answer (no-op, NotFoundError) or, if they persist,
into the mapped error.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors as pg
from psycopg_pool import PoolClosed, PoolTimeout, TooManyRequests

from ..._core.errors import AuthenticationError, BusyError, ConflictError, NotFoundError, SgamError, StoreError

KEY_REFUSED = "SGK01"
"""What ``sgam_api_key`` raises for a key checked inside a call that is not live."""

DRIVER_ERRORS: tuple[tuple[type[Exception], type[SgamError]], ...] = (
    (pg.SerializationFailure, BusyError),
    (pg.DeadlockDetected, BusyError),
    (pg.LockNotAvailable, BusyError),
    (pg.QueryCanceled, BusyError),
    (pg.ForeignKeyViolation, NotFoundError),
    (pg.UniqueViolation, ConflictError),
    (pg.ExclusionViolation, ConflictError),
    (pg.CheckViolation, ConflictError),
    (pg.NotNullViolation, ConflictError),
    (psycopg.IntegrityError, ConflictError),
    (psycopg.OperationalError, StoreError),
    (psycopg.ProgrammingError, StoreError),
    (psycopg.DataError, StoreError),
    (psycopg.NotSupportedError, StoreError),
    (psycopg.InternalError, StoreError),
    (psycopg.InterfaceError, StoreError),
    (psycopg.DatabaseError, StoreError),
    (psycopg.Error, StoreError),
)

RETRYABLE: tuple[type[Exception], ...] = (
    pg.SerializationFailure, pg.DeadlockDetected, pg.LockNotAvailable,
    pg.UniqueViolation, pg.ForeignKeyViolation, pg.ExclusionViolation,
)


def is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, RETRYABLE)


def to_sgam(exc: psycopg.Error) -> SgamError:
    """The sgam error for a driver error; its message keeps the database's own words."""
    if exc.sqlstate == KEY_REFUSED:
        return AuthenticationError("missing, malformed, unknown or revoked API key")
    if isinstance(exc, PoolClosed):
        return StoreError(f"PostgreSQL: this Memory is closed ({exc}): open a new one")
    if isinstance(exc, (PoolTimeout, TooManyRequests)):
        return BusyError(f"PostgreSQL: every pooled connection stayed in use ({exc}): retry later, or give the "
                         "backend a larger pool (max_size)")
    for driver_type, sgam_type in DRIVER_ERRORS:
        if isinstance(exc, driver_type):
            if sgam_type is BusyError:
                return BusyError(f"PostgreSQL kept failing the transaction after retries: {exc}")
            return sgam_type(f"PostgreSQL refused the change: {exc}")
    return StoreError(str(exc))  # pragma: no cover - the table ends in psycopg.Error


@contextmanager
def map_postgres_errors() -> Iterator[None]:
    try:
        yield
    except psycopg.Error as exc:
        raise to_sgam(exc) from exc
