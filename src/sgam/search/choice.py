"""Which embedders a tenant's vectors are made with: the one search uses (recorded per
tenant once a re-embedding has switched it; before that, the process's own) and the one
being built beside it (``reembedding.py``).

A question or an episode is embedded before its read or unit of work opens (an embedder
may be a model across the network, and a transaction holds a connection), so each
process remembers the last state it saw of each tenant and embeds by it; the read or the
unit of work then confirms that state in its own snapshot. A read that finds it changed
embeds again with the right embedder; a write that finds it changed is undone and made
again (``StaleEmbedders``). So a search uses exactly the vectors its snapshot holds, and
an episode commits with a vector of every model its transaction says is wanted.
"""

from __future__ import annotations

import threading

from .._core.errors import SgamError, StoreError
from ..store import EmbedderStateRow, Reader, SearchIndex
from .embedders import Embedder, load_embedder


class StaleEmbedders(Exception):  # noqa: N818 - a signal between two methods, never raised to a caller
    """A unit of work found the tenant's embedders changed since its vectors were made."""

    def __init__(self, state: EmbedderStateRow | None) -> None:
        super().__init__("the tenant's embedders changed")
        self.state = state


class EmbedderChoice:
    """The process's view of each tenant's embedders, and the embedders it can load."""

    def __init__(self, default: Embedder | None) -> None:
        self.default = default
        self._known: dict[str, Embedder] = {} if default is None else {default.name: default}
        self._seen: dict[str, EmbedderStateRow | None] = {}
        self._lock = threading.Lock()
        self._last_read: tuple[object, EmbedderStateRow | None] | None = None

    def remember(self, embedder: Embedder) -> None:
        """Make ``embedder`` available by its name (one given as an object, not a spec)."""
        with self._lock:
            self._known[embedder.name] = embedder

    def named(self, name: str, spec: str | None) -> Embedder:
        """The embedder called ``name``: known to this process, or loaded by ``spec``."""
        with self._lock:
            found = self._known.get(name)
        if found is not None:
            return found
        if spec is None:
            raise StoreError(f"this tenant's vectors are made by embedder {name!r}, which this process was not "
                             "given: pass it to Memory(embedder=...) or set SGAM_EMBEDDER", field="embedder",
                             value=name)
        loaded = load_embedder(spec)
        if loaded.name != name:
            raise StoreError(f"embedder spec {spec!r} now loads {loaded.name!r}, not {name!r}", field="embedder",
                             value=spec)
        self.remember(loaded)
        return loaded

    def active(self, state: EmbedderStateRow | None) -> Embedder | None:
        """The embedder search uses under ``state``."""
        if state is None or state.active is None:
            return self.default
        return self.named(state.active, state.active_spec)

    def for_writes(self, state: EmbedderStateRow | None) -> tuple[Embedder, ...]:
        """Every embedder a new row gets a vector of: the active one and, when this process
        can load it, the one being built (the build embeds what a writer could not)."""
        active = self.active(state)
        chosen = [] if active is None else [active]
        if state is not None and state.building is not None and state.building not in {e.name for e in chosen}:
            try:
                chosen.append(self.named(state.building, state.building_spec))
            except SgamError:
                pass
        return tuple(chosen)

    def models(self, state: EmbedderStateRow | None) -> set[str]:
        """The models whose vectors may be stored under ``state``."""
        names = {state.building} if state is not None and state.building is not None else set()
        if state is not None and state.active is not None:
            return names | {state.active}
        return names | ({self.default.name} if self.default is not None else set())

    def guess(self, tenant: str) -> tuple[bool, EmbedderStateRow | None]:
        """(whether this process has seen the tenant, the state it saw last)."""
        with self._lock:
            if tenant in self._seen:
                return True, self._seen[tenant]
        return False, None

    def saw(self, index: SearchIndex, tenant: str, state: EmbedderStateRow | None) -> None:
        """Remember ``state``; when it changed, drop the process's copies of vectors of
        models it no longer names."""
        with self._lock:
            changed = tenant not in self._seen or self._seen[tenant] != state
            self._seen[tenant] = state
        if changed and state is not None:
            index.forget_copies(tenant, self.models(state))

    def in_read(self, index: SearchIndex, reader: Reader, tenant: str) -> EmbedderStateRow | None:
        """The tenant's state in ``reader``'s snapshot, read once per read."""
        last = self._last_read
        if last is not None and last[0] is reader:
            return last[1]
        state = index.embedder_state(reader)
        self._last_read = (reader, state)
        self.saw(index, tenant, state)
        return state

