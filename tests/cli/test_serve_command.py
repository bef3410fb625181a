"""``sgam serve`` as a user starts it: the installed command, a real port on loopback."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from sgam import Memory

SGAM = Path(sys.executable).with_name("sgam")


def _serve(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    return subprocess.Popen([str(SGAM), "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 's.db'}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)


def test_a_port_in_use_is_named_with_the_options_that_choose_another(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = _serve(tmp_path, port)
        _, err = server.communicate(timeout=60)
    assert server.returncode == 2, err
    assert f"port {port} on 127.0.0.1 is in use" in err and "--port" in err and "--host" in err
    assert "Traceback" not in err and "Started server" not in err
    assert not (tmp_path / "s.db").exists()  # nothing was opened


def test_a_free_port_serves(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = _serve(tmp_path, port)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, server.communicate()[1]
                time.sleep(0.2)
        assert answer.status_code == 200
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_an_mcp_client_leaving_mid_request_is_one_log_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    with Memory(url) as memory:
        memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", "Mira moved to Oslo.")
    server = subprocess.Popen([str(SGAM), "mcp", "-t", "acme", "--db", url], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None

    def send(message: dict[str, object]) -> None:
        assert server.stdin is not None
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}})
    assert '"id":1' in server.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for number in range(2, 7):  # requests in flight when the client goes
        send({"jsonrpc": "2.0", "id": number, "method": "tools/call",
              "params": {"name": "recall", "arguments": {"question": "Where does Mira live?"}}})
    server.stdout.close()
    server.stdin.close()
    assert server.wait(timeout=60) == 0
    err = server.stderr.read()
    server.stderr.close()
    assert "Traceback" not in err, err
    assert [line for line in err.splitlines() if line.strip()] == [
        line for line in err.splitlines() if "the MCP client closed the connection mid-request" in line]
    assert err.count("closed the connection") == 1
