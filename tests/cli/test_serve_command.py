"""``sgam serve`` as a user starts it: the installed command, a real port on loopback."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

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
