"""Shared set-up of the in-process messaging tests."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def _take_one(sender: Any, receiver: Any, text: str) -> tuple[Any, Any]:
    """``sender`` sends ``text`` to ``receiver``, whose message box takes that one delivery and ticks it:
    ``(delivery, record)``; the delivery can be handed in again, as a redelivery after a lost ack."""
    sender.command("send_message", {"to": receiver.own_name(), "text": text})
    delivery = receiver.mailbox.transport.fetch(0)[0]
    receiver.mailbox._ready.append(delivery)
    return delivery, receiver.tick()


@pytest.fixture
def take_one() -> Callable[[Any, Any, str], tuple[Any, Any]]:
    return _take_one


def _committed_ticks(path: Path) -> int:
    """The ticks another connection sees in the database at ``path`` (what is committed)."""
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM journal").fetchone()[0]


@pytest.fixture
def committed_ticks() -> Callable[[Path], int]:
    return _committed_ticks
