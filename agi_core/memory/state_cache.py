"""The kernel's copy of its agent's module state (:class:`StateCache`), so a module's ``ctx.own.get`` reads the
store once instead of once a tick."""

from __future__ import annotations

CACHED_TEXT_MAX = 16_384  # a stored value's JSON text longer than this is read from the store each time
CACHED_KEYS_MAX = 10_000  # keys the cache holds at most (it is emptied at each reload)


class StateCache(dict[tuple[str, str], "str | None"]):
    """The kernel's copy of module state as its ticks stored it and read it: ``(module, key)`` to the value's JSON
    text, None for no row. The kernel empties it whenever the store may hold something else: a failed tick (its
    writes rolled back), a rollback, another process's commit (``Kernel.reload``). A value is read from the store
    once, not once a tick; what it holds is what the tick's transaction would read."""

    def note(self, module: str, key: str, text: str | None) -> None:
        """What the store holds under ``(module, key)``: ``text``, None for no row (a long text is not kept)."""
        if text is not None and len(text) > CACHED_TEXT_MAX:
            self.pop((module, key), None)
        elif len(self) < CACHED_KEYS_MAX or (module, key) in self:
            self[module, key] = text
