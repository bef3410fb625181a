"""The common one-fact write in one round trip (``sgam_write_one``, the module v29).

A write after its key's last start (it appends a version, or corroborates the one
holding) is most writes. The client validates it against the tenant's schema as the
backend last read it (``SchemaCache``, at its version) and sends the operation to the
server function with the Sync that commits it: the function checks the schema version,
the deadline probe, the source, the subject's names and consent statements and the key,
and either writes or hands back having written nothing. A write it hands back runs as a
unit of work with the planner (``PostgresWrite``), as every write did before.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from ..._core.rules import Effect, OpKind, Version
from ..._core.schema import AttributeSchema, MemoryTypeSchema
from .._acting import ACTING_FOR
from .._requests import CommonWrite, CommonWritten
from .adapters import Micros, micros
from .errors import is_retryable, to_sgam
from .keys import connection_taking_key
from .locks import lock_key
from .write import SchemaCache

_COLUMNS = "SELECT outcome, seq, recorded_at, effect, row_id, valid_to, supersedes "
_CALL = _COLUMNS + "FROM sgam_write_one(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
_KEYED_CALL = _COLUMNS + "FROM sgam_keyed_write_one(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
"""The same after the check of the call's API key (module v33): a key not live writes nothing."""
_EFFECTS = {effect.value: effect for effect in Effect}


class PostgresCommonWriter:
    """``CommonWriter`` of one tenant over the backend's pool and its schema cache."""

    __slots__ = ("_attributes", "_complete", "_pool", "_types", "tenant", "version")

    def __init__(self, pool: ConnectionPool[Any], tenant: str, schemas: SchemaCache) -> None:
        self._pool = pool
        self.tenant = tenant
        self.version, self._attributes, self._types = schemas[tenant]
        self._complete = True

    @property
    def complete(self) -> bool:
        return self._complete

    def attribute_schema(self, attribute: str) -> AttributeSchema | None:
        if attribute in self._attributes:
            return self._attributes[attribute]
        self._complete = False
        return None

    def memory_type(self, name: str) -> MemoryTypeSchema | None:
        if name in self._types:
            return self._types[name]
        self._complete = False
        return None

    def write(self, request: CommonWrite) -> CommonWritten | None:
        """The call alone on the autocommit connection: one statement that is its own
        transaction, committed before its row comes back, in one round trip (a pipeline
        around it costs the client more and saves nothing). A request that marks an
        idempotent attempt is left to a unit of work, in whose transaction the mark commits."""
        attempt = ACTING_FOR.get()
        if not self._complete or (attempt is not None and attempt.tenant == self.tenant):
            return None
        op = request.operation
        params = (
            self.tenant, Micros(request.now), lock_key(self.tenant, op.subject), op.schema_version, op.subject,
            op.attribute, Micros(op.valid_at), op.value, op.source, op.memory_type, op.confidence,
            micros(op.expires_at), request.spelling,
        )
        try:
            with connection_taking_key(self._pool, self.tenant) as (conn, key):
                cur = conn.cursor(binary=True)
                if key is None:
                    row = cur.execute(_CALL, params).fetchone()
                else:
                    row = cur.execute(_KEYED_CALL, (key.key_id, key.digest, *params)).fetchone()
        except psycopg.Error as exc:  # what a retry may cure is left to the unit of work, which retries
            if is_retryable(exc):
                return None
            raise to_sgam(exc) from exc
        if key is not None:
            key.checked = True
        if row is None or row[0] != "written":
            return None
        _, seq, recorded_at, effect_name, row_id, valid_to, supersedes = row
        effect = _EFFECTS[effect_name]
        if effect is Effect.CORROBORATED:
            return CommonWritten(int(seq), effect, None)
        assert op.value is not None
        version = Version(
            int(seq), op.subject, op.attribute, op.value, op.valid_at, valid_to, int(recorded_at), None, op.source,
            op.memory_type, op.confidence, op.schema_version, supersedes, OpKind.WRITE, None, row_id,
        )
        return CommonWritten(int(seq), effect, version)
