"""Drive the publish-once graph one step per process, as a real deployment would:

    python run.py start   --thread T --topic "Q3 report"   # drafts, stops before publish
    python run.py approve --thread T                       # a person approves (update_state)
    python run.py resume  --thread T                       # publishes, exactly once

Common options: ``--db`` (sgam URL), ``--checkpoints`` (``sgam``, the default: sgam's own
``SgamSaver`` in the same database, tenant-scoped and erasable with the ledger; or a
SQLite file for LangGraph's SqliteSaver, or a postgresql:// URL for its PostgresSaver), ``--service`` (the
publishing service's base URL), ``--tenant``, ``--no-reconcile`` (for a service that
keeps no idempotency keys). Every step runs with ``durability="sync"``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.types import Checkpointer

sys.path.insert(0, str(Path(__file__).resolve().parent))

from graph import build  # noqa: E402

from sgam import ActionInDoubt, Memory  # noqa: E402


@contextmanager
def checkpointer(where: str, memory: Memory, tenant: str) -> Iterator[Checkpointer]:
    if where == "sgam":
        from sgam.langgraph import SgamSaver

        yield SgamSaver(memory, tenant=tenant)
        return
    if where.startswith(("postgresql://", "postgres://")):
        from langgraph.checkpoint.postgres import PostgresSaver

        with PostgresSaver.from_conn_string(where) as saver:
            saver.setup()
            yield saver
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(where, check_same_thread=False)
    try:
        yield SqliteSaver(conn)
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("step", choices=["start", "approve", "resume", "state"])
    parser.add_argument("--thread", required=True)
    parser.add_argument("--topic", default="Q3 report")
    parser.add_argument("--db", default="sqlite:///publish_once.db")
    parser.add_argument("--checkpoints", default="sgam")
    parser.add_argument("--service", default="http://127.0.0.1:8765")
    parser.add_argument("--tenant", default="acme")
    parser.add_argument("--no-reconcile", action="store_true")
    args = parser.parse_args()
    config = {"configurable": {"thread_id": args.thread}}
    with Memory(args.db) as memory, checkpointer(args.checkpoints, memory, args.tenant) as saver:
        graph = build(memory, args.tenant, args.service, saver, reconcile=not args.no_reconcile)
        try:
            if args.step == "start":
                graph.invoke({"topic": args.topic}, config, durability="sync")
            elif args.step == "approve":
                graph.update_state(config, {"approved": True})
            elif args.step == "resume":
                graph.invoke(None, config, durability="sync")
        except ActionInDoubt as exc:
            print(f"in doubt: {exc.message}", file=sys.stderr)
            return 5
        snapshot = graph.get_state(config)
        print(json.dumps({"next": list(snapshot.next), "values": snapshot.values}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
