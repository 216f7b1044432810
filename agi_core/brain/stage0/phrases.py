"""The Stage-0 phrasings, parsed in linear time (no regular expression, no backtracking).

Each parser reads one sentence shape of the rulebook's R2/R3 rules and returns its parts,
or None. They give exactly what the former regular expressions gave (``re.I``, lazy
groups, a trailing ``\\s*[.!?]*\\s*``), but every parser is a few ``str.find`` calls and
one pass over the characters, so a 64 KB line costs about twice a 32 KB one. The former
patterns backtracked cubically: a 4,000-character ``my a is b<spaces>x`` took minutes.

The shapes (``[…]`` optional, ``A|B`` one of, keywords in any case)::

    profile read    (what|who|where|when)( is|'s|’s| are) my ATTR END
    profile write   [please ][remember [that ]]my ATTR (is|are) VALUE END
    world read      (what|who|where|when)( is|'s|’s| are| was) [the ]ATTR of ENTITY END
    world write     [the ]ATTR of ENTITY (is|are|was) VALUE END

ATTR is letters, digits, ``_``, ``'``, ``-`` and spaces; ENTITY also allows ``.``; VALUE
is anything but a line break; END is trailing spaces and ``. ! ?``. Each part is the
shortest that fits (the first ``of``, the first ``is``), as the lazy patterns chose.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_QUESTION_WORDS = ("what", "who", "where", "when")
_PROFILE_COPULAS = (" is ", "'s ", "’s ", " are ")
_WORLD_COPULAS = (" is ", "'s ", "’s ", " are ", " was ")
_END_PUNCTUATION = ".!?"


def _only(extra: str) -> Callable[[str], bool]:
    """A test that every character of a text is a letter, a digit or one of ``extra``."""
    table = str.maketrans("", "", extra)

    def valid(part: str) -> bool:
        rest = part.translate(table)
        return not rest or rest.isalnum()

    return valid


_attr_chars = _only("_' -")  # [\w' -]
_entity_chars = _only("_' .-")  # [\w' .-]


def _value_chars(part: str) -> bool:  # .+ (any character but a line break)
    return "\n" not in part


def lower_ascii(text: str) -> str:
    """``text`` with A-Z lowered and nothing else changed (indexes stay valid)."""
    return text.translate(_ASCII_LOWER)


def end_start(text: str) -> int:
    """Where the trailing ``\\s*[.!?]*\\s*`` of ``text`` begins (``len(text)`` if none)."""
    index = len(text)
    while index and text[index - 1].isspace():
        index -= 1
    while index and text[index - 1] in _END_PUNCTUATION:
        index -= 1
    while index and text[index - 1].isspace():
        index -= 1
    return index


def strip_end(text: str) -> str:
    """``text`` without its trailing spaces and ``. ! ?``."""
    return text[: end_start(text)]


#: Words a line may end with that ask nothing: "what was my favorite color again?", "…, please".
TRAILING_FILLERS = (
    "again please",
    "again",
    "please",
    "pls",
    "now",
    "then",
    "anyway",
    "exactly",
    "by the way",
    "btw",
    "once more",
    "one more time",
    "for me",
    "if you remember",
    "if you know",
    "do you remember",
    "do you know",
    "thanks",
    "thank you",
)
#: Fillers dropped from one line at most ("again, please, by the way"): the cost stays linear.
TRAILING_MAX = 4


def strip_trailing(text: str, *, bare: bool = True) -> str:
    """``text`` without its END and up to :data:`TRAILING_MAX` trailing fillers: ``what was my
    favorite color again?`` → ``what was my favorite color``. A filler counts after a comma, and,
    with ``bare`` (questions), after a space too; at least three words are always left ("what do you
    know" stays whole)."""
    text = strip_end(text)
    for _ in range(TRAILING_MAX):
        low = lower_ascii(text[-20:])  # the longest filler fits: no copy of a long line
        if not low.endswith(TRAILING_FILLERS):  # one C call: the usual line ends with none of them
            return text
        for filler in TRAILING_FILLERS:
            if not low.endswith(filler):
                continue
            before = text[: len(text) - len(filler)]
            if before.rstrip().endswith(",") or (bare and before[-1:].isspace()):
                rest = strip_end(before.rstrip(" ,"))
                if len(rest.split(None, 2)) == 3:
                    text = rest
                    break
        else:
            return text
    return text


def _last_part(text: str, start: int, valid: Callable[[str], bool]) -> str | None:
    """The lazy group that runs from ``start`` to END: at least one character, all valid."""
    if start >= len(text):
        return None
    part = text[start : max(start + 1, end_start(text))]
    return part if valid(part) else None


def _first(low: str, words: Iterable[str], start: int) -> tuple[int, str] | None:
    """The earliest occurrence at or after ``start`` of any of ``words`` in ``low``."""
    found = [(at, word) for word in words if (at := low.find(word, start)) >= 0]
    return min(found) if found else None


def _middle_part(
    text: str, low: str, start: int, words: Iterable[str], valid: Callable[[str], bool]
) -> tuple[str, int] | None:
    """The lazy group from ``start`` up to the first of ``words``: ``(part, index after the word)``."""
    found = _first(low, words, start + 1)
    if found is None:
        return None
    at, word = found
    part = text[start:at]
    return (part, at + len(word)) if valid(part) else None


def _after_question(low: str, copulas: Iterable[str]) -> int | None:
    """Index after ``(what|who|where|when)<copula>``, or None."""
    for word in _QUESTION_WORDS:
        if low.startswith(word):
            for copula in copulas:
                if low.startswith(copula, len(word)):
                    return len(word) + len(copula)
    return None


def profile_read(text: str) -> str | None:
    """``what is my favorite color?`` → ``favorite color``."""
    low = lower_ascii(text)
    start = _after_question(low, _PROFILE_COPULAS)
    if start is None or not low.startswith("my ", start):
        return None
    return _last_part(text, start + 3, _attr_chars)


def profile_write(text: str) -> tuple[str, str] | None:
    """``remember that my favorite color is green.`` → ``(favorite color, green)``."""
    low = lower_ascii(text)
    start = 7 if low.startswith("please ") else 0
    for prefix in ("remember that my ", "remember my ", "my "):
        if low.startswith(prefix, start):
            middle = _middle_part(text, low, start + len(prefix), (" is ", " are "), _attr_chars)
            if middle is None:
                return None
            value = _last_part(text, middle[1], _value_chars)
            return None if value is None else (middle[0], value)
    return None


def _of_then(text: str, low: str, start: int, last: Callable[[int], tuple[str, ...] | None]) -> tuple[str, ...] | None:
    """``ATTR of …`` from ``start`` with ``the `` taken first, as the optional group tried it."""
    starts = [start + 4, start] if low.startswith("the ", start) else [start]
    for begin in starts:
        attr = _middle_part(text, low, begin, (" of ",), _attr_chars)
        if attr is not None and (rest := last(attr[1])) is not None:
            return (attr[0], *rest)
    return None


def world_read(text: str) -> tuple[str, str] | None:
    """``what is the capital of France?`` → ``(capital, France)``."""
    low = lower_ascii(text)
    start = _after_question(low, _WORLD_COPULAS)
    if start is None:
        return None

    def entity(at: int) -> tuple[str, ...] | None:
        part = _last_part(text, at, _entity_chars)
        return None if part is None else (part,)

    found = _of_then(text, low, start, entity)
    return None if found is None else (found[0], found[1])


def world_write(text: str) -> tuple[str, str, str] | None:
    """``the capital of France is Paris`` → ``(capital, France, Paris)``."""
    low = lower_ascii(text)

    def entity_value(at: int) -> tuple[str, ...] | None:
        entity = _middle_part(text, low, at, (" is ", " are ", " was "), _entity_chars)
        if entity is None:
            return None
        value = _last_part(text, entity[1], _value_chars)
        return None if value is None else (entity[0], value)

    found = _of_then(text, low, 0, entity_value)
    return None if found is None else (found[0], found[1], found[2])


__all__ = [
    "end_start",
    "lower_ascii",
    "profile_read",
    "profile_write",
    "strip_end",
    "strip_trailing",
    "world_read",
    "world_write",
]
