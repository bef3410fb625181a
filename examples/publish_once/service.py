"""A stand-in publishing service on 127.0.0.1 for the publish-once example.

``POST /reports`` publishes a report (JSON) and answers with a receipt. With
``--honour-keys`` it remembers each ``Idempotency-Key``: a repeat gets the first
receipt and publishes nothing, and ``GET /reports/by-key/KEY`` says whether a key was
published (200 with the receipt, or 404). Without it, every POST publishes and lookups
answer 501. Every publication is appended to ``--log`` (one JSON line each), so a test
can count them. ``--hold-first SECONDS`` keeps the first POST's response back after
publishing it: the window in which a client can die having been served.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


class Publisher:
    def __init__(self, log: Path, honour_keys: bool, hold_first: float) -> None:
        self.log = log
        self.honour_keys = honour_keys
        self.hold_first = hold_first
        self.by_key: dict[str, dict[str, Any]] = {}
        self.count = 0
        self.lock = threading.Lock()

    def publish(self, report: dict[str, Any], key: str | None) -> tuple[dict[str, Any], bool]:
        """The receipt, and whether this request published (False: a repeated key)."""
        with self.lock:
            if self.honour_keys and key and key in self.by_key:
                return self.by_key[key], False
            self.count += 1
            receipt = {"receipt": f"pub-{self.count}", "title": report.get("title")}
            with self.log.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"key": key, "report": report, "receipt": receipt["receipt"]}) + "\n")
            if self.honour_keys and key:
                self.by_key[key] = receipt
            return receipt, True


def handler(publisher: Publisher) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _reply(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            if self.path != "/reports":
                self._reply(404, {"error": "no such route"})
                return
            report = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            receipt, published = publisher.publish(report, self.headers.get("Idempotency-Key"))
            if published and publisher.count == 1 and publisher.hold_first > 0:
                time.sleep(publisher.hold_first)
            self._reply(201 if published else 200, receipt)

        def do_GET(self) -> None:  # noqa: N802
            prefix = "/reports/by-key/"
            if not self.path.startswith(prefix):
                self._reply(404, {"error": "no such route"})
            elif not publisher.honour_keys:
                self._reply(501, {"error": "this service does not keep idempotency keys"})
            elif (found := publisher.by_key.get(self.path[len(prefix):])) is not None:
                self._reply(200, found)
            else:
                self._reply(404, {"known": False})

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--honour-keys", action="store_true")
    parser.add_argument("--hold-first", type=float, default=0.0)
    args = parser.parse_args()
    publisher = Publisher(args.log, args.honour_keys, args.hold_first)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(publisher))
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
