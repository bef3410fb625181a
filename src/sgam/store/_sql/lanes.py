"""Connections besides a read's own, each holding the read's snapshot, that build the
pages of a big table's export side by side: a page is a statement over a key range, the
pages are taken back in order, and each lane holds at most ``AHEAD`` pages built, so
memory stays a few pages whatever the table's size. How a lane comes to hold the read's
snapshot, and how it runs a statement, is the backend's (``postgres/lanes.py``,
``sqlite/lanes.py``); what is here is only the threads and the order.
"""

from __future__ import annotations

import queue
import threading
from abc import ABC, abstractmethod
from collections.abc import Generator, Iterator, Sequence
from typing import Generic, TypeVar

from ..._core.errors import ValidationError
from .session import Params, Row

LANES = 2
"""Connections building pages at once unless the backend says otherwise
(``export_lanes``). Two keep a machine of two cores busy beside the thread writing the
file; on such a machine more wait for the same cores."""

WAIT = 1.0
"""Seconds to wait for what a lane needs (a pooled connection, a moment without writers):
a busy store gives an export fewer lanes (none: the read builds its lines alone), never
a stalled one."""

AHEAD = 2
"""Pages a lane holds built while the caller has not taken them yet."""

POLL = 0.1
"""Seconds between a lane's looks at whether the caller stopped taking pages."""

Conn = TypeVar("Conn")


def check_lanes(lanes: object) -> int:
    """``export_lanes`` as a backend takes it."""
    if isinstance(lanes, bool) or not isinstance(lanes, int) or lanes < 0:
        raise ValidationError("export_lanes", lanes, "a whole number of connections, 0 or more")
    return lanes


class Lanes(ABC, Generic[Conn]):
    """Connections on one read's snapshot, until ``close``."""

    def __init__(self) -> None:
        self._conns: list[Conn] = []
        self._walking: list[tuple[threading.Event, list[threading.Thread]]] = []
        """The stop signal and threads of each walk begun (``pages``) and not yet ended."""

    @property
    def count(self) -> int:
        return len(self._conns)

    def pages(self, statements: Sequence[tuple[str, Params]], *, text_as_bytes: bool = True) -> Iterator[list[Row]]:
        """The rows of each statement (in the driver's spelling; ``text_as_bytes``: text as
        the UTF-8 bytes the database sent, which an export writes as they are), in the
        order given: statement ``i`` runs on lane ``i`` modulo the lanes, while the caller
        takes the ones before it."""
        lanes = len(self._conns)
        built: list[queue.Queue[list[Row] | BaseException]] = [queue.Queue(maxsize=AHEAD) for _ in range(lanes)]
        stop = threading.Event()
        workers = [threading.Thread(target=_build, name=f"sgam-lane-{lane}", daemon=True,
                                    args=(self._walk(conn, statements[lane::lanes], text_as_bytes), built[lane],
                                          stop))
                   for lane, conn in enumerate(self._conns)]
        walk = (stop, workers)
        self._walking.append(walk)
        for worker in workers:
            worker.start()
        try:
            for index in range(len(statements)):
                page = built[index % lanes].get()
                if isinstance(page, BaseException):
                    raise page
                yield page
        finally:
            _end(*walk)
            if walk in self._walking:
                self._walking.remove(walk)

    @abstractmethod
    def _walk(self, conn: Conn, statements: Sequence[tuple[str, Params]],
              text_as_bytes: bool) -> Generator[list[Row]]:
        """Each statement's rows on ``conn``, in order (run on the lane's thread)."""

    @abstractmethod
    def _release(self, conn: Conn) -> None:
        """End ``conn``'s transaction and let it go."""

    def close(self) -> None:
        """Stop every walk still going (one its caller dropped unfinished: its threads use
        the connections), then release the connections."""
        walks, self._walking = self._walking, []
        for walk in walks:
            _end(*walk)
        conns, self._conns = self._conns, []
        for conn in conns:
            self._release(conn)


def _end(stop: threading.Event, workers: list[threading.Thread]) -> None:
    stop.set()
    for worker in workers:
        if worker.is_alive():
            worker.join()


def _build(walk: Generator[list[Row]], built: queue.Queue[list[Row] | BaseException], stop: threading.Event) -> None:
    """A lane's thread: hands over each page as its statement ends, at most ``AHEAD``
    ahead of the caller; a failure is handed over too, for the caller to raise."""

    def hand_over(item: list[Row] | BaseException) -> bool:
        while not stop.is_set():
            try:
                built.put(item, timeout=POLL)
                return True
            except queue.Full:
                continue
        return False

    try:
        for rows in walk:
            if not hand_over(rows):
                return
    except BaseException as failed:  # noqa: BLE001 - the caller raises it in its own thread
        hand_over(failed)
    finally:
        walk.close()
