"""One exception hierarchy for the whole framework.

Every message is a single line that names the thing that is wrong and how to fix it;
the CLI prints it as is and exits non-zero (``AGI_RAISE_ERRORS=1`` re-raises instead).
"""

from __future__ import annotations


class AgiError(Exception):
    """Base class of every error agi-core raises on purpose."""


class ConfigError(AgiError):
    """A setting, option or environment variable has a value the kernel cannot use."""


class PluginError(AgiError):
    """A plugin failed to load, declared something invalid, or raised in a hook."""


class RegistrationError(PluginError):
    """A plugin registered something twice, or something that does not match its schema."""


class ValidationError(AgiError):
    """Data does not match its schema; ``path`` is the JSON path of the first problem."""

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(message)
        self.path = path


class MemoryKeyError(AgiError):
    """A semantic-memory key breaks the canonical key rules (S1-S3)."""


class StorageError(AgiError):
    """The store could not read or write; nothing already stored was changed."""


class ToolError(AgiError):
    """A tool was called with bad arguments, refused by policy, or failed."""


class ReplayMismatch(AgiError):
    """A replayed tick differs from the recorded one."""


class DatabaseLocked(StorageError):
    """Another process held the database's write lock longer than the lock timeout."""
