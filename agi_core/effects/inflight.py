"""Which intents a live process is executing right now: one OS file lock per intent.

The process that records an intent takes an exclusive ``flock`` on ``<db>.intents/<tick>.lock``
before the intent's tick commits, and lets it go once the receipt has committed (or the
tick failed). The OS drops the lock when the process dies, SIGKILL included. So another
process that finds an intent without a receipt can tell the two cases apart: the lock is
held (the call is running elsewhere: nothing to report) or free (its process is gone: the
intent is orphaned, and only then is the user warned).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock, every pending intent counts as orphaned
    fcntl = None  # type: ignore[assignment]


class InFlight:
    """The intent locks of one agent, kept in ``folder`` (created on first use)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._held: dict[int, int] = {}  # tick -> file descriptor of the lock we hold

    @classmethod
    def beside(cls, db: object) -> InFlight:
        """The locks of the database file ``db``; a backend without a file keeps none."""
        return cls(Path(f"{db}.intents") if isinstance(db, Path) else None)

    def _path(self, tick: int) -> Path | None:
        return self.folder / f"{tick}.lock" if self.folder is not None else None

    def hold(self, tick: int, *, wait: bool = True) -> bool:
        """Take the lock of ``tick``'s intent (held already: True). ``wait=False`` returns False
        at once when another process holds it."""
        path = self._path(tick)
        if path is None or fcntl is None or tick in self._held:
            return True
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._held[tick] = fd
        return True

    def release(self, tick: int) -> None:
        """Let ``tick``'s lock go and remove its file."""
        fd = self._held.pop(tick, None)
        if fd is None:
            return
        path = self._path(tick)
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()
        os.close(fd)

    def release_all(self) -> None:
        for tick in list(self._held):
            self.release(tick)

    def running(self, tick: int) -> bool:
        """True while some live process (this one included) holds ``tick``'s lock."""
        if tick in self._held:
            return True
        path = self._path(tick)
        if path is None or fcntl is None:
            return False
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False  # no lock file: nobody is running it
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False
