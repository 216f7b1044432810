"""Chat markers at the end of a line ("lol", "haha", ":)", …): not part of what the line states (the
``chat_markers`` parse change): "my name is Dan lol" names Dan. A marker word counts in lower case or all
capitals only ("Lol" may be a name); an emoticon or emoji as written."""

from __future__ import annotations

#: marker words, lowered (any run of "ha" or "he" counts too: "hahaha")
WORDS = frozenset({"lol", "lols", "lmao", "lmfao", "rofl", "xd", "heh", "jk", "hah"})
#: emoticons and emoji, as written
FACES = frozenset(
    {":)", ":-)", ":(", ":-(", ":d", ":-d", ";)", ";-)", ":p", ":-p", "<3", "^^", ":o", "=)", "xd"}
    | set("😂🤣😀😃😄😁😅😆😊🙂😉😎😍👍🙏")
)
#: the most markers taken off one line
MOST = 4


def is_marker(word: str) -> bool:
    """Whether ``word`` (one token) is a chat marker: a marker word in lower case or capitals, "haha"…, a face."""
    low = word.lower()
    if low in FACES:
        return True
    if word not in (low, word.upper()):  # "Lol", "Haha": a name
        return False
    laughed = len(low) >= 4 and len(low) % 2 == 0 and low[:2] in ("ha", "he") and low == low[:2] * (len(low) // 2)
    return low in WORDS or laughed


def without_markers(text: str) -> str:
    """``text`` without up to :data:`MOST` trailing markers (and the commas before them); ``text`` itself when
    nothing else would be left."""
    words = text.rstrip(" .!?").split(" ")
    cut = len(words)
    while cut > 1 and len(words) - cut < MOST and is_marker(words[cut - 1].rstrip(".!?,")):
        cut -= 1
    if cut == len(words):
        return text
    return " ".join(words[:cut]).rstrip(" ,;-")


__all__ = ["FACES", "MOST", "WORDS", "is_marker", "without_markers"]
