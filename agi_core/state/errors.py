"""Errors of the RLM state service; each message is one line naming the problem and the fix."""

from __future__ import annotations

from agi_core.errors import AgiError, ValidationError


class StateError(AgiError):
    """Base class of every error the RLM state service raises on purpose."""


class StateNotFound(StateError):
    """No state, checkpoint or variable has the given id or name."""


class VariableNotFound(StateNotFound):
    """The variable does not exist (or its TTL has run out) in any scope the state sees."""


class ReadOnlyVariable(StateError):
    """``prompt``, or a variable created with ``read_only=True``, cannot change."""


class StateLimitError(StateError):
    """A documented limit (variables, checkpoints, name length) would be exceeded."""


class PathEscapeError(StateError):
    """A ``file_path`` value points outside the state's own folder."""


class VariableValueError(StateError, ValidationError):
    """A variable name, type, scope or value breaks the rules of the RLM state schema."""

    def __init__(self, message: str, path: str = "$") -> None:
        ValidationError.__init__(self, message, path)
