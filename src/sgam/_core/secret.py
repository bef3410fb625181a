"""The installation's erasure key: what makes erasure records and tombstones one-way.

An erasure record and a tombstone hold ``HMAC-SHA256(key, tenant, kind, target)``, never
the target. Without the key a digest cannot be checked against guesses (an unkeyed hash
of an episode id or a subject name can: ids and names are easy to enumerate). The key is
kept out of the database it protects, found in this order:

1. ``SGAM_ERASURE_KEY``: the key itself (at least 32 characters);
2. ``SGAM_ERASURE_KEY_FILE``: a file holding it;
3. SQLite: ``<database file>.key`` beside the database; PostgreSQL: ``erasure.key`` in
   ``$XDG_CONFIG_HOME/sgam`` (default ``~/.config/sgam``). Created (mode 0600, 32 random
   bytes) the first time an erasure or an episode needs it.

Losing the key loses nothing stored, but the tombstones can no longer be matched: an
episode id erased before the loss could be recorded again. docs/lifecycle.md says more.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from .errors import StoreError

KEY_ENV = "SGAM_ERASURE_KEY"
KEY_FILE_ENV = "SGAM_ERASURE_KEY_FILE"
MIN_KEY_LENGTH = 32


def default_key_path(url: str) -> Path | None:
    """Where the key lives when no variable names it; None for an in-memory database."""
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///"):]
        return None if path in (":memory:", "") else Path(f"{path}.key")
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config) / "sgam" / "erasure.key"


def load_key(url: str) -> bytes:
    """The key for the store at ``url`` (see the module docstring), created if missing."""
    direct = os.environ.get(KEY_ENV)
    if direct is not None:
        if len(direct) < MIN_KEY_LENGTH:
            raise StoreError(f"{KEY_ENV} must hold at least {MIN_KEY_LENGTH} characters")
        return direct.encode()
    named = os.environ.get(KEY_FILE_ENV)
    path = Path(named) if named else default_key_path(url)
    if path is None:
        return secrets.token_bytes(32)  # an in-memory store dies with its process
    return _read_or_create(path)


def _read_or_create(path: Path) -> bytes:
    if not path.exists():
        _create(path)
    try:
        key = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"cannot read the erasure key file {path}: {exc}") from None
    if len(key) < MIN_KEY_LENGTH:
        raise StoreError(f"the erasure key file {path} must hold at least {MIN_KEY_LENGTH} characters")
    return key.encode()


def _create(path: Path) -> None:
    """Write a fresh key beside its final name, then link it there: two processes racing
    both end up reading the one that won, never a half-written file."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
    except OSError as exc:
        raise StoreError(f"cannot create the erasure key file {path}: {exc}") from None
    finally:
        temporary.unlink(missing_ok=True)


class Digests:
    """Keyed digests of erased targets, the key loaded on first use."""

    def __init__(self, url: str, key: bytes | None = None) -> None:
        self._url = url
        self._key = key

    def of(self, tenant: str, kind: str, target: str) -> str:
        if self._key is None:
            self._key = load_key(self._url)
        message = "\x1f".join((tenant, kind, target)).encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()
