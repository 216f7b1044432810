"""An indirect question turned direct, for the agent it is sent to ("ask bob where my sister lives").

``where my sister lives`` → ``where does my sister live?``: the question words, then the subject (from the
first word that can begin one: a pronoun, a determiner, a capitalised name), then its verb. A verb is found
by its form among common verbs (:data:`VERBS`): one that agrees (``lives``, ``grew``) before a bare one
(``live``, which may be a noun); an auxiliary or copula (``is``, ``can``, ``has been``) moves before the
subject, any other verb takes ``do``/``does``/``did`` and its bare form. A line that fits no such shape is
sent as it was, with a ``?``.

Whose things: the message speaks for the asker, so "my", "I", "me" stay as they are: the recipient reads a
message's "my" as its sender's (``user/relation/<sender>__sister``), as it stored "tell bob that my sister lives
in Lyon". The recipient named in the third person at the head of the subject (``where he lives``, ``what his
name is``) is addressed: ``where do you live?``, ``what is your name?``.

Plain word tests, no regular expression: linear in the line.
"""

from __future__ import annotations

from agi_core.brain.stage0.phrases import lower_ascii

OLD_QUESTION_WORDS = ("what", "who", "where", "when", "which", "why", "how")
QUESTION_WORDS = (*OLD_QUESTION_WORDS, "whose")
COPULAS = ("is", "are", "was", "were")
#: verbs that move before the subject, as they are ("has"/"have"/"had" only before a participle)
AUXILIARIES = frozenset({*COPULAS, "am", "can", "could", "will", "would", "shall", "should", "may", "might", "must"})
PERFECT = frozenset({"has", "have", "had"})
#: the recipient in the third person → addressed (only at the head of the question's subject)
ADDRESSED = {"he": "you", "she": "you", "his": "your", "her": "your"}
#: the forms an addressed subject takes: "where he is" → "where are you"
YOU_FORMS = {"is": "are", "was": "were", "has": "have", "does": "do"}
PRONOUNS = frozenset({"i", "you", "he", "she", "it", "we", "they"})
DETERMINERS = frozenset({"my", "your", "his", "her", "its", "our", "their", "the", "a", "an", "this", "that"})
#: common verbs: the bare form → its past (irregular ones); the others add -ed
_IRREGULAR_PAIRS = (
    "grow grew come came go went eat ate drink drank speak spoke teach taught know knew think thought keep kept "
    "write wrote meet met say said make made take took get got see saw buy bought pay paid leave left begin began "
    "feel felt wear wore run ran sleep slept drive drove do did have had sing sang find found read read"
).split()
IRREGULAR = dict(zip(_IRREGULAR_PAIRS[::2], _IRREGULAR_PAIRS[1::2], strict=True))
REGULAR = (
    "live work study like love want need play own prefer call use listen watch visit start arrive move stay cook "
    "hate enjoy learn earn hope expect remember believe"
).split()


def _third_person(bare: str) -> str:
    if bare == "have":
        return "has"
    if bare.endswith(("s", "sh", "ch", "x", "o")):
        return bare + "es"
    if bare.endswith("y") and bare[-2:-1] not in "aeiou":
        return bare[:-1] + "ies"
    return bare + "s"


def _past(bare: str) -> str:
    if bare in IRREGULAR:
        return IRREGULAR[bare]
    if bare.endswith("e"):
        return bare + "d"
    if bare.endswith("y") and bare[-2:-1] not in "aeiou":
        return bare[:-1] + "ied"
    return bare + "ed"


#: a verb form → (its bare form, the ``do`` it takes): ``lives`` → (live, does), ``grew`` → (grow, did)
AGREEING = {
    **{_third_person(bare): (bare, "does") for bare in (*IRREGULAR, *REGULAR)},
    **{_past(bare): (bare, "did") for bare in (*IRREGULAR, *REGULAR)},
}
BARE = frozenset((*IRREGULAR, *REGULAR))


def _starts_subject(word: str) -> bool:
    low = lower_ascii(word)
    return low in PRONOUNS or low in DETERMINERS or (word[:1].isupper() and low not in QUESTION_WORDS)


def _verb_at(words: list[str], start: int) -> int | None:
    """The index of the subject's verb after ``start``: the first auxiliary or agreeing form, else a bare one."""
    bare = None
    for at in range(start + 1, len(words)):
        low = lower_ascii(words[at])
        if low in AUXILIARIES or low in AGREEING:
            return at
        if bare is None and low in BARE:
            bare = at
    return bare


def _is_auxiliary(words: list[str], at: int) -> bool:
    low = lower_ascii(words[at])
    if low in AUXILIARIES:
        return True
    following = lower_ascii(words[at + 1]) if at + 1 < len(words) else ""
    return low in PERFECT and (following == "been" or following.endswith(("ed", "en")))


def direct_question(text: str) -> str:
    """``where my sister lives`` → ``where does my sister live?``; ``what the capital of Peru is`` →
    ``what is the capital of Peru?``; ``where he lives`` → ``where do you live?``; other text ends with ``?``."""
    words = text.split()
    if len(words) < 2 or lower_ascii(words[0]) not in QUESTION_WORDS:
        return " ".join(words) + "?"
    if lower_ascii(words[1]) in AUXILIARIES or lower_ascii(words[1]) in AGREEING:  # "who lives here": direct
        return " ".join(words) + "?"
    start = next((at for at in range(1, len(words)) if _starts_subject(words[at])), None)
    verb = _verb_at(words, start) if start is not None else None
    if start is None or verb is None:
        return " ".join(words) + "?"
    asked, subject, rest = words[:start], words[start:verb], words[verb + 1 :]
    addressed = lower_ascii(subject[0]) in ADDRESSED
    if addressed:
        subject = [ADDRESSED[lower_ascii(subject[0])], *subject[1:]]
    you = addressed and len(subject) == 1  # "he" became "you" (not "his sister" → "your sister")
    said = lower_ascii(words[verb])
    if _is_auxiliary(words, verb):
        moved = YOU_FORMS.get(said, said) if you else words[verb]
        return " ".join([*asked, moved, *subject, *rest]) + "?"
    bare, do = AGREEING.get(said, (words[verb], "do"))
    if you and do == "does":
        do = "do"
    return " ".join([*asked, do, *subject, bare, *rest]) + "?"


def copula_moved(text: str) -> str:
    """What :func:`direct_question` sent before it knew verbs (its journals replay with it): only a last copula
    moved after the question word (``what the capital of Peru is`` → ``what is the capital of Peru?``)."""
    words = text.split()
    if len(words) >= 3 and lower_ascii(words[0]) in OLD_QUESTION_WORDS and lower_ascii(words[-1]) in COPULAS:
        words = [words[0], words[-1], *words[1:-1]]
    return " ".join(words) + "?"


__all__ = ["copula_moved", "direct_question"]
