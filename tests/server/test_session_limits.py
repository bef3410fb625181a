"""Sessions are shared out per API key and per tenant: one key that opens sessions without
end (MCP) or signs in again and again (inspector) uses up its own share, never another
tenant's. On both backends, against a real server."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from sgam import Memory
from sgam.server.limits import SessionLimits

from .conftest import Served, post_sign_in, serve

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "0"}}}
SMALL = SessionLimits(per_key=2, per_tenant=3, total=5)


@pytest.fixture
def limited(store_url: str) -> Iterator[Served]:
    with Memory(store_url) as memory, serve(memory, mcp_sessions=SMALL, inspector_sessions=SMALL) as running:
        yield running


def mcp_headers(served: Served, tenant: str, scope: str) -> dict[str, str]:
    return {"Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {served.keys[(tenant, scope)]}"}


def open_mcp(served: Served, tenant: str, scope: str) -> httpx.Response:
    return httpx.post(f"{served.url}/mcp", json=INITIALIZE, headers=mcp_headers(served, tenant, scope), timeout=30)


def opened(served: Served, tenant: str, scope: str) -> str:
    response = open_mcp(served, tenant, scope)
    assert response.status_code == 200, response.text
    session: str = response.headers["mcp-session-id"]
    return session


def test_an_mcp_key_past_its_share_is_refused_alone(limited: Served) -> None:
    first = opened(limited, "acme", "read")
    opened(limited, "acme", "read")
    refused = open_mcp(limited, "acme", "read")
    assert refused.status_code == 429 and "this API key has 2 MCP sessions open" in refused.text
    assert refused.headers["retry-after"]
    other_tenant = opened(limited, "globex", "read")  # another tenant never notices
    assert other_tenant

    opened(limited, "acme", "write")  # the tenant's third session, from another key
    by_tenant = open_mcp(limited, "acme", "admin")
    assert by_tenant.status_code == 429 and "this tenant has 3 MCP sessions open" in by_tenant.text
    opened(limited, "globex", "write")

    ended = httpx.delete(f"{limited.url}/mcp", headers={**mcp_headers(limited, "acme", "read"),
                                                         "mcp-session-id": first}, timeout=30)
    assert ended.status_code < 400
    opened(limited, "acme", "read")  # its own share has room again


def test_another_keys_delete_does_not_free_a_share(limited: Served) -> None:
    first = opened(limited, "acme", "read")
    opened(limited, "acme", "read")
    foreign = httpx.delete(f"{limited.url}/mcp", headers={**mcp_headers(limited, "acme", "write"),
                                                           "mcp-session-id": first}, timeout=30)
    assert foreign.status_code == 404
    assert open_mcp(limited, "acme", "read").status_code == 429


def test_a_refused_or_unauthenticated_opening_takes_no_place(limited: Served) -> None:
    for _ in range(5):
        assert httpx.post(f"{limited.url}/mcp", json=INITIALIZE, timeout=30,
                          headers={"Accept": "application/json, text/event-stream"}).status_code == 401
        assert httpx.post(f"{limited.url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                          headers=mcp_headers(limited, "acme", "read"), timeout=30).status_code >= 400
    opened(limited, "acme", "read")
    opened(limited, "acme", "read")


def sign_in(served: Served, tenant: str, scope: str) -> httpx.Client:
    client = httpx.Client(base_url=served.url, timeout=30)
    response = post_sign_in(client, served.keys[(tenant, scope)])
    assert response.status_code == 303, response.text
    return client


def signed_in(client: httpx.Client) -> bool:
    return client.get("/ui/").status_code == 200


def test_inspector_sign_ins_past_a_keys_share_end_only_its_own_sessions(limited: Served) -> None:
    other_tenant = sign_in(limited, "globex", "read")
    same_tenant = sign_in(limited, "acme", "write")
    own = [sign_in(limited, "acme", "read") for _ in range(12)]
    assert signed_in(other_tenant) and signed_in(same_tenant)
    assert [signed_in(client) for client in own] == [False] * 10 + [True] * 2  # its oldest ended

    admin = [sign_in(limited, "acme", "admin") for _ in range(2)]  # the tenant's share: 3
    assert signed_in(other_tenant) and [signed_in(c) for c in admin] == [True, True]
    assert sum(signed_in(c) for c in [same_tenant, *own]) == 1  # the tenant's oldest ended first

    more = sign_in(limited, "globex", "write")
    assert signed_in(more) and signed_in(other_tenant)
    for client in (other_tenant, same_tenant, more, *own, *admin):
        client.close()


def test_a_full_inspector_refuses_sign_in_and_ends_nobodys_session(store_url: str) -> None:
    tiny = SessionLimits(per_key=2, per_tenant=2, total=3)
    with Memory(store_url) as memory, serve(memory, inspector_sessions=tiny) as served:
        holders = [sign_in(served, "acme", "read"), sign_in(served, "acme", "write"),
                   sign_in(served, "globex", "read")]
        with httpx.Client(base_url=served.url, timeout=30) as late:
            refused = post_sign_in(late, served.keys[("globex", "write")])
            assert refused.status_code == 503 and "sgam_session" not in refused.headers.get("set-cookie", "")
        assert [signed_in(c) for c in holders] == [True, True, True]
        for client in holders:
            client.close()
