"""Greetings and small talk: the fallback agent (R4) answers them with a fixed, friendly line instead of F3.

Each phrase is compared whole (lowered, end punctuation and a trailing name such as "agent"
dropped), never searched for inside a longer line, so "hello, my name is Ada" still goes to R2.
"""

from __future__ import annotations

from agi_core.brain.stage0.phrases import lower_ascii, strip_end

HELP = (
    "Tell me facts to remember (“my favorite color is green”, “my sister lives in Lyon”), ask about them "
    "(“what is my favorite color?”), give me arithmetic (“2 + 3”) or a goal (“my goal is to learn Spanish”)."
)
GREETING = "Hello! " + HELP
REPLIES: dict[str, tuple[str, ...]] = {
    GREETING: (
        "hello",
        "hi",
        "hey",
        "hi there",
        "hello there",
        "hey there",
        "good morning",
        "good afternoon",
        "good evening",
        "greetings",
        "howdy",
        "yo",
    ),
    "I’m running well, thank you. What can I do for you?": (
        "how are you",
        "how are you doing",
        "how's it going",
        "how is it going",
        "how do you do",
        "what's up",
        "whats up",
        "are you ok",
        "are you there",
    ),
    "You’re welcome.": ("thanks", "thank you", "thank you very much", "thanks a lot", "cheers", "ta", "thx"),
    "Goodbye! I’ll remember what you told me.": (
        "bye",
        "goodbye",
        "good bye",
        "see you",
        "see you later",
        "good night",
        "bye bye",
        "later",
    ),
    "I’m a deterministic Stage-0 agent: I store facts, answer from them, do exact arithmetic and keep goals. " + HELP: (
        "who are you",
        "what are you",
        "what can you do",
        "help",
        "what do you do",
        "what is your purpose",
    ),
    "OK.": ("ok", "okay", "cool", "nice", "great", "good", "alright", "all right", "fine", "sure", "yes", "no"),
}
PHRASES = {phrase: reply for reply, phrases in REPLIES.items() for phrase in phrases}
NAMES = (" agent", " agi", " bot", " there", " friend")


def small_talk(text: str) -> str | None:
    """The reply to ``text`` if it is a greeting or small talk, else None."""
    phrase = lower_ascii(strip_end(text.strip().replace("’", "'"))).rstrip(" ,")
    if phrase in PHRASES:
        return PHRASES[phrase]
    for name in NAMES:
        if phrase.endswith(name) and (short := phrase[: -len(name)].rstrip(" ,")) in PHRASES:
            return PHRASES[short]
    return None


__all__ = ["GREETING", "HELP", "small_talk"]
