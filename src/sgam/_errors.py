"""The one exception hierarchy every sgam surface raises and maps.

    SgamError
    ├── ValidationError (also ValueError)   bad shape, type, timestamp or size
    ├── NotFoundError (also LookupError)    unknown episode, target or tenant object
    ├── ConflictError                       would overwrite or contradict stored state
    │   └── ActionInDoubt                   an action's call began but its outcome is unknown
    └── StoreError                          the database could not do its part
        ├── BusyError                       still locked after every retry
        ├── UnsafeDatabaseError             a connection that could bypass isolation
        └── SchemaVersionError              database newer than this code

Each error carries a stable ``kind`` string; the CLI turns it into an exit status and
replay scenarios name it in ``error:``.
"""

from __future__ import annotations

from typing import Any


class SgamError(Exception):
    """Root of every error sgam raises on purpose."""

    kind = "error"

    def __init__(self, message: str, *, field: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.value = value

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if self.field is not None:
            data["field"] = self.field
        return data


class ValidationError(SgamError, ValueError):
    """A value broke a rule of the schema or the API; nothing was written."""

    kind = "validation"

    def __init__(self, field: str, value: Any, rule: str) -> None:
        shown = repr(value)
        if len(shown) > 80:
            shown = shown[:77] + "..."
        super().__init__(f"{field}: {rule} (got {shown})", field=field, value=value)
        self.rule = rule


class NotFoundError(SgamError, LookupError):
    """The episode, assertion or target named by the call does not exist in the tenant."""

    kind = "not_found"


class ConflictError(SgamError):
    """The call contradicts stored state and sgam refuses to overwrite it silently."""

    kind = "conflict"


class ActionInDoubt(ConflictError):
    """An action's intent was recorded but not its outcome (a crash mid-call, or a call
    still running elsewhere): calling again could repeat it, so a person (or a
    ``reconcile`` that asks the destination) must decide."""

    kind = "action_in_doubt"


class StoreError(SgamError):
    """The database failed in a way the caller cannot fix by changing the call."""

    kind = "store"


class BusyError(StoreError):
    """The database stayed locked (or kept failing serialisation) after every retry."""

    kind = "busy"


class UnsafeDatabaseError(StoreError):
    """The connection could read or write across tenants (superuser, owner, BYPASSRLS)."""

    kind = "unsafe_database"


class SchemaVersionError(StoreError):
    """The database schema is newer than this version of sgam understands."""

    kind = "schema_version"


ERROR_KINDS: tuple[type[SgamError], ...] = (
    ValidationError,
    NotFoundError,
    ConflictError,
    ActionInDoubt,
    StoreError,
    BusyError,
    UnsafeDatabaseError,
    SchemaVersionError,
)
