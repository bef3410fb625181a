"""A real ``sgam serve`` app under uvicorn on a free loopback port, on each backend,
with one key per tenant and scope; tests drive it over the socket with httpx."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn

from sgam import AsyncMemory, Memory
from sgam.access import create_key
from sgam.server import create_app
from sgam.server.http11 import uvicorn_config

from ..conftest import ManualClock

MAX_BODY = 64 * 1024


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Served:
    """A running server: its URL, the Memory behind it and keys by (tenant, scope)."""

    url: str
    memory: Memory
    keys: dict[tuple[str, str], str]

    def client(self, tenant: str = "acme", scope: str = "admin") -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.keys[(tenant, scope)]}"},
                            timeout=30)

    def anonymous(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30)


class ServerThread:
    """uvicorn in a thread of this process as ``sgam serve`` runs it, bound to 127.0.0.1,
    stopped on exit."""

    def __init__(self, app: object, port: int) -> None:
        config = uvicorn_config(app, "127.0.0.1", port, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def post_sign_in(client: httpx.Client, key: str, next: str = "/ui/") -> httpx.Response:
    """Sign in as a browser does: load the form (its CSRF token and cookie), then post it."""
    form = client.get("/ui/sign-in")
    found = re.search(r'name="csrf" value="([^"]+)"', form.text)
    assert form.status_code == 200 and found, form.text
    return client.post("/ui/sign-in", data={"key": key, "next": next, "csrf": found.group(1)})


@contextmanager
def serve(memory: Memory, **options: Any) -> Iterator[Served]:
    """``options``: more arguments of ``create_app`` (session limits, say)."""
    keys = {(tenant, scope): create_key(memory, tenant, scope).key
            for tenant in ("acme", "globex") for scope in ("read", "write", "admin")}
    port = free_port()
    app = create_app(AsyncMemory(memory, workers=4), max_body=MAX_BODY, public_url=f"http://127.0.0.1:{port}",
                     **options)
    with ServerThread(app, port):
        yield Served(f"http://127.0.0.1:{port}", memory, keys)


@pytest.fixture
def served(store_url: str) -> Iterator[Served]:
    with Memory(store_url) as memory, serve(memory) as running:
        yield running


@pytest.fixture
def served_at(store_url: str, clock: ManualClock) -> Iterator[Served]:
    """``served`` whose transaction time is the ``clock`` fixture: deadlines without waiting."""
    with Memory(store_url, clock=clock) as memory, serve(memory) as running:
        yield running
