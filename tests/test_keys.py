"""API keys: shown once, stored as a digest, checked in constant time, revoked at once;
``sgam keys`` on both backends (row-level security on PostgreSQL)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sgam import Memory
from sgam.access import AuthenticationError, authenticate, create_key, list_keys, principal_of, revoke_key
from sgam.cli import app


def test_cli_create_list_revoke(store_url: str) -> None:
    runner = CliRunner()
    created = runner.invoke(app, ["keys", "create", "-t", "acme", "--scope", "write", "--json", "--db", store_url])
    assert created.exit_code == 0, created.output
    issued = json.loads(created.output)
    assert set(issued) == {"id", "key", "tenant", "scope"}
    assert issued["tenant"] == "acme" and issued["scope"] == "write" and issued["key"].startswith("sgam_")
    listed = json.loads(runner.invoke(app, ["keys", "list", "-t", "acme", "--json", "--db", store_url]).output)
    assert [k["id"] for k in listed] == [issued["id"]] and "key" not in listed[0]
    assert listed[0]["revoked_at"] is None
    assert json.loads(runner.invoke(app, ["keys", "list", "-t", "globex", "--json", "--db", store_url]).output) == []
    with Memory(store_url) as memory:
        assert authenticate(memory, issued["key"]).tenant == "acme"
    revoked = runner.invoke(app, ["keys", "revoke", issued["id"], "--db", store_url])
    assert revoked.exit_code == 0, revoked.output
    with Memory(store_url) as memory, pytest.raises(AuthenticationError):
        authenticate(memory, issued["key"])
    unknown = runner.invoke(app, ["keys", "revoke", "bm9uZQ.nothing", "--db", store_url])
    assert unknown.exit_code == 4
    bad_scope = runner.invoke(app, ["keys", "create", "-t", "acme", "--scope", "root", "--db", store_url])
    assert bad_scope.exit_code == 3 and "scope" in bad_scope.output


def test_only_a_digest_is_stored(memory: Memory) -> None:
    issued = create_key(memory, "acme", "read")
    secret = issued.key.rsplit(".", 1)[1]
    with memory.backend.read("acme") as reader:
        row = reader.api_key(issued.id)
    assert row is not None and secret not in row.digest and issued.key not in repr(row)
    assert principal_of(memory, issued.id) is not None


@pytest.mark.parametrize("presented", [
    None, "", "sgam_", "Bearer x", "sgam_a.b.c", "sgam_YWNtZQ.nope.nope", "sgam_YWNtZQ..", "x" * 10_000,
    "sgam_!!!.a.b", "sgam_YWNtZQ.a.b.c",
])
def test_anything_but_a_live_key_is_refused(memory: Memory, presented: object) -> None:
    issued = create_key(memory, "acme", "admin")
    with pytest.raises(AuthenticationError):
        authenticate(memory, presented)
    tampered = issued.key[:-1] + ("A" if issued.key[-1] != "A" else "B")
    with pytest.raises(AuthenticationError):
        authenticate(memory, tampered)
    other_tenant = issued.key.replace("sgam_YWNtZQ", "sgam_Z2xvYmV4")
    with pytest.raises(AuthenticationError):
        authenticate(memory, other_tenant)


def test_revocation_is_per_key_and_idempotent(memory: Memory) -> None:
    first, second = create_key(memory, "acme", "read"), create_key(memory, "acme", "write")
    assert revoke_key(memory, first.id).revoked_at is not None
    again = revoke_key(memory, first.id)
    listed = {key.id: key for key in list_keys(memory, "acme")}
    assert again.revoked_at == listed[first.id].revoked_at and listed[second.id].revoked_at is None
    assert principal_of(memory, first.id) is None
    assert authenticate(memory, second.key).scope == "write"
