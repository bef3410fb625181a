"""PostgreSQL schema: what a new version of a typed memory type made of each stored value."""

# Registering a new version of a memory type (a Pydantic model) with a conversion
# function is a ``retype`` step of each attribute holding values of the type
# (``ledger_changes``). The function is Python the database does not have, so its outcome
# for each operation it changed is kept: ``value`` the converted value's canonical JSON,
# or ``reason`` why the operation was set aside (the function failed, or its result does
# not validate against the new model). Re-deriving the attribute later (an erasure, a
# later step) reads these instead of calling the function. ``step`` is the change's
# ``seq``; an operation's rows die with it (``ON DELETE CASCADE``), so erasure and expiry
# reach converted values and reasons like the operation itself. A tenant table (in
# ``TENANT_TABLES``).

SCRIPT = """
    CREATE TABLE converted_values (
        tenant text NOT NULL CHECK (tenant <> ''),
        seq bigint NOT NULL,
        step bigint NOT NULL,
        value text,
        reason text,
        PRIMARY KEY (tenant, seq, step),
        FOREIGN KEY (tenant, seq) REFERENCES operations (tenant, seq) ON DELETE CASCADE,
        CHECK ((value IS NULL) <> (reason IS NULL))
    );
"""
