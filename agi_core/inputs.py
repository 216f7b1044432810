"""Where outside text enters: decoding with replacement, size limits, bounded previews.

Every byte sequence is accepted: invalid UTF-8 becomes U+FFFD and the rest goes on, and a
lone surrogate (what Python makes of an undecodable byte on stdin or in ``argv``) becomes
U+FFFD too, so none ever reaches SQLite or the JSON encoder. Lines are read in bounded
pieces: a line over the limit is counted and hashed, never held whole.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Protocol

import attrs

MAX_INPUT_BYTES = 64 * 1024
"""Default largest input a tick accepts (``KernelConfig.max_input_bytes``, ``--max-input``)."""

PREVIEW_CHARS = 200
"""Characters of a long text kept where only a reminder of it is needed (working memory turns)."""

_SURROGATES = re.compile("[\ud800-\udfff]")
_CHUNK = 1 << 16


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (no copy when there is none)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATES.sub("\ufffd", text)
    return text


def decode(data: bytes) -> str:
    """UTF-8 with replacement: invalid bytes become U+FFFD."""
    return data.decode("utf-8", errors="replace")


def utf8_size(text: str) -> int:
    """Bytes ``text`` takes in UTF-8 (surrogates counted as the U+FFFD they become)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", errors="replace"))


#: characters that end, rewrite or restyle a terminal line (CR, LF, VT, FF, ESC …, NEL, U+2028/2029); a tab stays
_LINE_BREAKERS = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")


def reply_line(text: str) -> str:
    r"""``text`` as one line of output: each character that would break or rewrite the line is shown
    escaped (``\r``, ``\x1b``, ``\u2028``). ``agi run`` prints one line a reply; the journal keeps it as it is."""
    if _LINE_BREAKERS.search(text) is None:
        return text
    return _LINE_BREAKERS.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), text)


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """``text`` itself if short, else its first ``limit`` characters, its length and its sha256."""
    if len(text) <= limit:
        return text
    digest = hashlib.sha256(text.encode("utf-8", errors="replace")).hexdigest()
    return f"{text[:limit]}… [{len(text)} chars, sha256:{digest}]"


@attrs.frozen
class Oversized:
    """A line longer than the limit, read in pieces: its first bytes, total size and sha256."""

    head: str
    size: int
    sha256: str


class ReadsLines(Protocol):
    """What :func:`read_lines` reads: a binary file, or ``agi_core.scheduling.sensors.FdReader``."""

    def readline(self, limit: int, /) -> bytes: ...


def read_lines(stream: ReadsLines, max_bytes: int) -> Iterator[str | Oversized]:
    """Lines of a binary stream, decoded with replacement, newline stripped.

    A line over ``max_bytes`` (newline excluded) comes back as :class:`Oversized` after the
    rest of it has been read and hashed in 64 KiB pieces, so memory stays bounded.
    """
    while True:
        line = stream.readline(max_bytes + 2)
        if not line:
            return
        if line.endswith(b"\n") and len(line.rstrip(b"\r\n")) <= max_bytes:
            yield decode(line[:-2] if line.endswith(b"\r\n") else line[:-1])
            continue
        if not line.endswith(b"\n") and len(line) <= max_bytes:
            yield decode(line)  # the last line, without a newline
            continue
        digest, size, head = hashlib.sha256(), 0, line[:PREVIEW_CHARS]
        while line:
            body = line.rstrip(b"\n")
            digest.update(body)
            size += len(body)
            if line.endswith(b"\n"):
                break
            line = stream.readline(_CHUNK)
        yield Oversized(decode(head), size, digest.hexdigest())


def too_large_reply(size: int, limit: int) -> str:
    """The reply of a tick whose input was refused for its size."""
    return (
        f"Input refused: it is {size:,} bytes and the limit is {limit:,}; "
        "split it into smaller messages or raise the limit (--max-input, KernelConfig.max_input_bytes)."
    )


def normalize(text: str) -> str:
    """The ``normalized`` form of an input: whitespace collapsed, ends trimmed."""
    return " ".join(text.split())
