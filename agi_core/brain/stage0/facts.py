"""Facts told and asked in everyday words: R2/R3 beyond "the X of Y", parsed without a regex.

:func:`parse` turns one line into a :class:`Parsed`: a write (``value`` set), a read or a
forget, each about one or more :class:`Ref` (a subject and an attribute). A read lists its
candidate refs in order; the first one stored answers. The subjects:

- the user (``my name``, ``I live in …``, ``I am Dana``: see :func:`_said_name`): key
  ``user/person/self/<attribute>``;
- someone or something of the user's (``my sister lives in …``, ``my dog's name``, ``the name
  of my dog``): ``user/relation/<noun>/<attribute>``;
- someone of a named person's (``Bob's sister lives in …``, ``where does Bob's sister live?``, ``Bob's sister's
  name``; the noun one of :data:`PEOPLE`): ``user/relation/bob__sister/<attribute>``, the relations bob keeps
  when he says "my sister" (:func:`agi_core.brain.stage0.fact_replies.key_of`);
- a named thing (``the capital of France``, ``France's capital``, ``Shakespeare wrote Hamlet``):
  ``world/entity/<name>/<attribute>`` (the name is never passed through the synonyms).

What the user likes and dislikes (``I like hiking``, ``I don't like hiking anymore``, ``do I like
hiking?``, ``what do I like?``) are two facts of theirs, ``user/person/self/likes`` and
``user/person/self/dislikes``, each a list of the things as written (:func:`_liking`; ops
:data:`PREFER` and :data:`ASK_PREFER`).

Verbs become attributes (``live in`` → ``home``, ``wrote`` → ``author``, ``is called`` →
``name``), so the statement and its question meet on one key. Every test is a ``str.find``
or ``startswith`` over the line, a fixed number of them: the cost is linear in the line.
"""

from __future__ import annotations

import contextvars
import functools
import re

from agi_core.brain.stage0.forget_more import FORGET_PREFER, forget_more
from agi_core.brain.stage0.indirect import direct_question
from agi_core.brain.stage0.markers import without_markers
from agi_core.brain.stage0.parse_changes import (
    CHANGES,
    CHAT_MARKERS,
    CLAUSE_END,
    FORGET_FORMS,
    FORGET_MORE,
    JOB_TOLD,
    LIKED_APART,
    LIKES,
    MATH_WORDS,
    NAMED_BESIDE,
    OTHERS_LIKES,
    OTHERS_POSSESSIVE,
    OWNED_SUBJECT,
    RELATION_JOB,
    REMIND_WHEN,
    SAID_NAME,
)
from agi_core.brain.stage0.phrases import end_start, lower_ascii, strip_trailing
from agi_core.brain.stage0.refs import ME, RELATION, SELF, WORLD, Parsed, Ref, Subject
from agi_core.brain.stage0.vocabulary import (
    ADDRESSES,
    ASK_PREFER,
    ASKED_LIKING,
    ASKED_VERBS,
    ASKING,
    ASKING_TO_FORGET,
    COPULAS,
    DISLIKED,
    DOING,
    FILLERS,
    FILLERS_BEFORE,
    JOB,
    JOB_ENDS,
    KIND_WORDS,
    LIKED,
    LIKING_ADVERBS,
    LIKING_ENDS,
    LIKING_VERBS,
    LISTED_LIKING,
    NAMING_PREFIXES,
    NEXT_CLAUSE,
    NOT_A_NAME,
    NOT_LIKED,
    NOT_NAMES,
    NOT_SOMEONE,
    OCCUPATIONS,
    OTHERS_ADVERBS,
    OTHERS_ASKED_LIKING,
    OTHERS_LIKING_VERBS,
    OTHERS_LISTED_LIKING,
    OTHERS_POSSESSIVES,
    PEOPLE,
    PREFER,
    ROLE_FORMS,
    ROLES,
    SAYING_WHO,
    SET_VERBS,
    STATED_VERBS,
    SURE_ASKING,
    WH_WORDS,
    WHOLE_THINGS,
    WORKING_AS,
)

#: the changes a tick reads its line without (a tick of a journal from before them, replayed); a context
#: variable, so :func:`parse` keeps its one-argument form for every caller
OLD_RULES: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar("old_rules", default=frozenset())
#: a substring of every line that a change may read otherwise (the usual line has none: no parse to compare)
MAY_DIFFER = (
    *(*OTHERS_POSSESSIVES, "i am ", "i'm ", "i’m ", "hi", "hello", "there"),
    *("like", "lov", "enjoy", "ador", "hate", "stand", "detest"),  # the likes change
    *NEXT_CLAUSE,
    "forget",  # the forget_forms change
    *("work as", "works as", "what do", "does "),  # the job and others' likes changes
    " is a",  # the relation_job change
)


def _valid(part: str, extra: str) -> bool:
    rest = part.translate(str.maketrans("", "", extra))
    return bool(part.strip()) and (not rest or rest.isalnum())


def _attr_ok(part: str) -> bool:
    return _valid(part, "_' -")


def _name_ok(part: str) -> bool:
    return _valid(part, "_' .-&")


def _clean(text: str) -> tuple[str, str]:
    """``(text, lowered)``: one line, curly apostrophes made straight, fillers and end punctuation off."""
    text = text.strip().replace("’", "'")
    text = text[: end_start(text)]
    fillers = FILLERS_BEFORE if SAID_NAME in OLD_RULES.get() else FILLERS
    for _ in range(3):  # "oh, actually, no, …"
        low = lower_ascii(text)
        if not low.startswith(fillers):  # the usual line: no filler, no loop
            break
        for filler in fillers:
            if low.startswith(filler) and low[len(filler) : len(filler) + 1] in (" ", ","):
                text = text[len(filler) :].lstrip(" ,")
                break
        else:
            break
    return text, lower_ascii(text)


def _drop_the(name: str) -> str:
    return name[4:] if lower_ascii(name).startswith("the ") else name


def _owned(text: str) -> Subject | None:
    """``Bob's sister`` → Bob's sister (the noun one of :data:`PEOPLE`); None for anything else."""
    at = text.find("'s ")
    owner, noun = _drop_the(text[:at]).strip(), text[at + 3 :].strip()
    named = lower_ascii(owner)
    if at <= 0 or lower_ascii(noun) not in PEOPLE or not _name_ok(owner) or "'s" in owner:
        return None
    if named in NOT_NAMES or named == "my" or named.startswith(("my ", *OTHERS_POSSESSIVES)):
        return None
    return Subject(RELATION, noun, owner)


def subject_of(text: str) -> Subject | None:
    """``I`` → the user; ``my sister`` → the user's sister; ``Bob's sister`` → Bob's; ``the Eiffel Tower`` → a
    named thing; ``your sister``, ``his brother`` → None (:data:`OTHERS_POSSESSIVES`)."""
    text = text.strip()
    low = lower_ascii(text)
    if low in ("i", "me", "myself"):
        return ME
    if low.startswith("my "):
        noun = text[3:].strip()
        if NAMED_BESIDE not in OLD_RULES.get() and (beside := _named_beside(noun)) is not None:
            return beside
        return Subject(RELATION, noun) if _attr_ok(noun) and "'s" not in noun else None
    if "'s " in text and OWNED_SUBJECT not in OLD_RULES.get() and (owned := _owned(text)) is not None:
        return owned
    name = _drop_the(text).strip()
    named = lower_ascii(name)
    if not _name_ok(name) or named in NOT_NAMES or "'s " in name or " of " in named:
        return None
    if named.startswith(OTHERS_POSSESSIVES) and OTHERS_POSSESSIVE not in OLD_RULES.get():
        return None
    return Subject(WORLD, name)


def _named_beside(noun: str) -> Subject | None:
    """``brother Tom`` (after "my") → the brother, called Tom: a person noun (:data:`PEOPLE`), then a name."""
    person, _, name = noun.partition(" ")
    name = name.strip()
    if lower_ascii(person) not in PEOPLE or not name[:1].isupper() or not _name_ok(name) or "'s" in name:
        return None
    return None if lower_ascii(name) in NOT_NAMES else Subject(RELATION, person, called=name)


def _names_beside(text: str) -> bool:
    """Whether the line says a person noun after "my" and a capitalised word after it ("my brother Tom"): what
    :data:`NAMED_BESIDE` reads. Each "my " once, its next two words looked at: linear in the line."""
    low = lower_ascii(text)
    at = low.find("my ")
    while at >= 0:
        person, _, rest = text[at + 3 : at + 3 + 40].partition(" ")
        if lower_ascii(person) in PEOPLE and rest[:1].isupper():
            return True
        at = low.find("my ", at + 3)
    return False


def noun_ref(text: str) -> Ref | None:
    """The ref a noun phrase names: ``my favorite color``, ``my dog's name``, ``the name of my dog``,
    ``France's capital``, ``the capital of France``; None for anything else."""
    text = text.strip()
    low = lower_ascii(text)
    start = 4 if low.startswith("the ") else 0
    of = low.find(" of ", start)
    if of > start and not low.startswith("my ", start):
        owner = subject_of(text[of + 4 :])
        attr = text[start:of]
        return Ref(owner, attr) if owner is not None and owner is not ME and _attr_ok(attr) else None
    if low.startswith("my "):
        rest = text[3:]
        own = rest.find("'s ")
        if own > 0:
            noun, attr = rest[:own], rest[own + 3 :]
            ok = _attr_ok(noun) and _attr_ok(attr)
            return Ref(Subject(RELATION, noun.strip()), attr) if ok else None
        return Ref(ME, rest) if _attr_ok(rest) else None
    own = low.find("'s ")
    last = low.rfind("'s ")
    if last > own > 0 and OWNED_SUBJECT not in OLD_RULES.get():  # "Bob's sister's name"
        whose = subject_of(text[:last])
        if whose is not None and whose.owner and _attr_ok(text[last + 3 :]):
            return Ref(whose, text[last + 3 :])
    if own > 0:
        owner = subject_of(text[:own])
        attr = text[own + 3 :]
        return Ref(owner, attr) if owner is not None and owner.kind == WORLD and _attr_ok(attr) else None
    return None


def _read(*refs: Ref | None) -> Parsed | None:
    """A read of ``refs``; a person named either way is asked both ways: "my wife is Maria" answers
    "what is my wife's name?", and "my wife's name is Maria" answers "who is my wife?"."""
    found: list[Ref] = []
    for ref in refs:
        if ref is None:
            continue
        found.append(ref)
        if ref.subject.kind == RELATION and ref.attribute == "name" and not ref.subject.owner:
            found.append(Ref(ME, ref.subject.name))
        elif ref.subject.kind == SELF and _attr_ok(ref.attribute) and " " not in ref.attribute.strip():
            found.append(Ref(Subject(RELATION, ref.attribute.strip()), "name"))
    return Parsed("read", tuple(found)) if found else None


def _first_clause(value: str) -> str:
    """``value`` up to where another clause begins (:data:`NEXT_CLAUSE`): "Lisbon and I work as a nurse" → "Lisbon";
    "Bosnia and Herzegovina" stays whole (no new subject after its "and")."""
    low = lower_ascii(value)
    ends = [at for part in NEXT_CLAUSE if (at := low.find(part)) > 0]
    return value[: min(ends)].rstrip(" ,") if ends else value


def _write(ref: Ref | None, value: str) -> Parsed | None:
    value = value.strip()
    if CLAUSE_END not in OLD_RULES.get():
        value = _first_clause(value)
    if lower_ascii(value).endswith(" now"):
        value = value[:-4].rstrip(" ,")
    if ref is None or not value or "\n" in value:
        return None
    return Parsed("write", (ref,), value)


def _wh_copula(low: str) -> tuple[str, int] | None:
    """``(question word, index after the copula)`` for ``what is``, ``what's``, ``who are``, …"""
    for word in WH_WORDS:
        if low.startswith(word):
            after = len(word)
            if low.startswith("'s ", after):
                return word, after + 3
            for copula in COPULAS:
                if low.startswith(copula, after):
                    return word, after + len(copula)
    return None


def _where_candidates(subject_text: str) -> list[Ref | None]:
    """``where is X?``: X's stored attribute first (``my home``), then X's location."""
    owner = subject_of(subject_text)
    return [noun_ref(subject_text), Ref(owner, "location") if owner is not None and owner is not ME else None]


def _verb_question(text: str, low: str) -> Parsed | None:
    """``where does my sister live``, ``who do I work for``, ``where did I grow up``."""
    for word in ("where", "who", "what", "when"):
        for aux in (" do ", " does ", " did "):
            if not low.startswith(word + aux):
                continue
            rest, rest_low = text[len(word + aux) :], low[len(word + aux) :]
            for verb, attribute in sorted(ASKED_VERBS.items(), key=lambda item: -len(item[0])):
                if rest_low.endswith(" " + verb):
                    owner = subject_of(rest[: len(rest) - len(verb) - 1])
                    return _read(Ref(owner, attribute)) if owner is not None else None
    return None


def _role_question(text: str, low: str) -> Parsed | None:
    """``who wrote Hamlet``, ``who was Hamlet written by``."""
    for active, passive, role in ROLES:
        if low.startswith(f"who {active} "):
            owner = subject_of(text[len(active) + 5 :])
            return _read(Ref(owner, role)) if owner is not None else None
        for copula in ("was ", "is ", "were "):
            if low.startswith("who " + copula) and low.endswith(f" {passive} by"):
                owner = subject_of(text[4 + len(copula) : len(text) - len(passive) - 4])
                return _read(Ref(owner, role)) if owner is not None else None
    return None


def _question(text: str, low: str) -> Parsed | None:
    if low in LISTED_LIKING and LIKES not in OLD_RULES.get():  # "what do I like?"
        return Parsed("read", (Ref(ME, LISTED_LIKING[low]),))
    if low.startswith("what do") and JOB_TOLD not in OLD_RULES.get() and (job := _job_question(text, low)):
        return job
    if low.startswith("what does ") and OTHERS_LIKES not in OLD_RULES.get() and (listed := _others_listed(text, low)):
        return listed
    for asking in ASKING:
        if low.startswith(asking):
            rest = text[len(asking) :]
            return _question(*_clean(rest)) or _read(noun_ref(rest))
    if low in ("who am i", "what am i called", "what is my name", "what's my name"):
        return _read(Ref(ME, "name"))
    if low == "how old am i":
        return _read(Ref(ME, "age"))
    if low in ("where am i from", "where do i come from"):
        return _read(Ref(ME, "home_town"))
    for how, attribute in (("how old ", "age"), ("how tall ", "height")):
        for copula in ("is ", "are "):
            if low.startswith(how + copula):
                owner = subject_of(text[len(how + copula) :])
                return _read(Ref(owner, attribute)) if owner is not None else None
    for word, attribute in (("when", "birth_date"), ("where", "birth_place")):
        for copula in (" was ", " were "):
            if low.startswith(word + copula) and low.endswith(" born"):
                owner = subject_of(text[len(word + copula) : -5])
                return _read(Ref(owner, attribute)) if owner is not None else None
    if low.startswith(("where is ", "where are ")) and low.endswith(" from"):
        owner = subject_of(text[text.find(" ", 6) + 1 : -5])
        return _read(Ref(owner, "home_town")) if owner is not None else None
    if (found := _verb_question(text, low) or _role_question(text, low)) is not None:
        return found
    for kind in KIND_WORDS:  # "what day is my meeting?"
        if low.startswith(f"what {kind} ") and (asked := _wh_copula("what " + low[6 + len(kind) :])) is not None:
            return _read(noun_ref(text[6 + len(kind) + asked[1] - 5 :]))
    asked = _wh_copula(low)
    if asked is None:
        return None
    word, start = asked
    rest, rest_low = text[start:], low[start:]
    if rest_low.endswith(" called") or rest_low.endswith(" named"):
        owner = subject_of(rest[: rest.rfind(" ")])
        return _read(Ref(owner, "name")) if owner is not None else None
    if word == "where":
        return _read(*_where_candidates(rest))
    return _read(noun_ref(rest))


def _born(ref_subject: Subject, attribute: str, value: str) -> Ref:
    if attribute == "birth_place" and value.strip()[:1].isdigit():
        attribute = "birth_date"  # "born in 1756"
    return Ref(ref_subject, attribute)


def _said_name(text: str) -> bool:
    """Whether ``text`` (what follows "I am") is a name: one to three words, each a capital then at least one
    small letter ("Dana", "Mary Ann", "O'Neil"), none a word that says what someone is ("I am French",
    "I am Sorry"). "I am tired", "I'm OK" and "i'm dana" name no one: a name is said capitalised."""
    said = text.split()
    return 0 < len(said) <= 3 and all(
        word[0].isupper()
        and any(c.islower() for c in word)
        and word.replace("'", "").replace("-", "").isalpha()
        and lower_ascii(word) not in NOT_A_NAME
        for word in said
    )


def _liked_thing(text: str) -> str | None:
    """The thing of ``I like X`` as written, without "anymore", "a lot", …; None for a pronoun ("it", "you") or
    a clause ("to think", "when …"); it ends where another clause begins (:func:`_first_clause`)."""
    text = text.strip()
    if CLAUSE_END not in OLD_RULES.get():
        text = _first_clause(text)  # "I like hiking and I hate mushrooms"
    for _ in range(2):  # "I don't like hiking very much anymore"
        low = lower_ascii(text)
        end = next((end for end in LIKING_ENDS if low.endswith(end)), None)
        if end is None:
            break
        text = text[: -len(end)].rstrip(" ,")
    first = lower_ascii(text).split(" ", 1)[0].strip(",")
    return text if text and first not in NOT_LIKED and len(text) <= 100 else None


def _liking_verb(low: str, at: int, verbs: tuple[tuple[str, str], ...]) -> tuple[int, str] | None:
    """``(end of the verb, attribute)`` of the first of ``verbs`` at ``at``, or after one adverb there."""
    for start in (at, *(at + len(a) for a in LIKING_ADVERBS if low.startswith(a, at))):
        for verb, attribute in verbs:
            if low.startswith(verb, start):
                return start + len(verb), attribute
    return None


def _preference(attribute: str, thing: str | None, op: str, who: Subject = ME) -> Parsed | None:
    if thing is None:
        return None
    other = DISLIKED if attribute == LIKED else LIKED
    things = _apart(thing, attribute == DISLIKED) if LIKED_APART not in OLD_RULES.get() else ()
    return Parsed(op, (Ref(who, attribute), Ref(who, other)), thing, things)


def _apart(thing: str, disliked: bool) -> tuple[str, ...]:
    """The things of ``hiking and jazz``, ``rock and roll, tea, and long walks`` (``or`` too for a dislike:
    ``mushrooms or olives``), each as written; () for one thing. An "and" inside one of :data:`WHOLE_THINGS`
    joins no two things; a part that is no thing ("hiking and to read") keeps the whole one. Linear in the thing:
    each joint is found with ``str.find``, onwards."""
    low = lower_ascii(thing)
    kept = [(at, at + len(whole)) for whole in WHOLE_THINGS if (at := low.find(whole)) >= 0]
    joints = (", and ", ", or ", ", ", " and ", " & ", *((" or ", " nor ") if disliked else ()))
    things: list[str] = []
    start = 0
    while (found := min(_joint(low, joint, start, kept) for joint in joints))[0] < len(low):
        at, length = found[0], -found[1]
        things.append(thing[start:at].strip())
        start = at + length
    things.append(thing[start:].strip())
    if len(things) < 2 or not all(things) or any(lower_ascii(t).split(" ", 1)[0] in NOT_LIKED for t in things):
        return ()
    return tuple(things)


def _joint(low: str, joint: str, start: int, kept: list[tuple[int, int]]) -> tuple[int, int]:
    """``(where, -length)`` of the first ``joint`` from ``start`` outside the ``kept`` spans; ``len(low)`` where
    there is none (so ``min`` takes the first found, the longest of those at one place)."""
    at = low.find(joint, start)
    while at > 0 and any(a <= at < b for a, b in kept):
        at = low.find(joint, next(b for a, b in kept if a <= at < b))
    return (at, -len(joint)) if at > 0 else (len(low), 0)


def _someone(text: str) -> Subject | None:
    """Whom ``text`` names as the subject of a like or a job: the user, one of theirs ("my sister", "Bob's
    sister"), or a name (each word capitalised, not "Everyone"); None for anything else ("the weather")."""
    subject = subject_of(text)
    if subject is None or subject.kind != WORLD:
        return subject
    words = subject.name.split()
    named = 0 < len(words) <= 3 and all(word[:1].isupper() for word in words)
    return subject if named and lower_ascii(subject.name) not in NOT_SOMEONE else None


def _others_liking(text: str, low: str) -> Parsed | None:
    """``Bob likes jazz``, ``my sister really loves tea``, ``my dog doesn't like the vet``: someone else's likes."""
    found = [(at, verb, attribute) for verb, attribute in OTHERS_LIKING_VERBS if (at := low.find(verb)) > 0]
    if not found:
        return None
    at, verb, attribute = min(found)
    said = text[:at].split()
    while said and lower_ascii(said[-1]) in OTHERS_ADVERBS:  # "my sister really loves tea"
        said.pop()
    who = _someone(" ".join(said))
    if who is None or who is ME:
        return None
    return _preference(attribute, _liked_thing(text[at + len(verb) :]), PREFER, who)


def _others_asked_liking(text: str, low: str) -> Parsed | None:
    """``does Bob like jazz?``, ``does my sister hate coffee``: the thing looked up in the list asked, then in
    the other."""
    found = [(at, verb, attribute) for verb, attribute in OTHERS_ASKED_LIKING if (at := low.find(verb, 5)) > 5]
    if not found:
        return None
    at, verb, attribute = min(found)
    who = _someone(text[5:at])
    if who is None or who is ME:
        return None
    return _preference(attribute, _liked_thing(text[at + len(verb) :]), ASK_PREFER, who)


def _others_listed(text: str, low: str) -> Parsed | None:
    """``what does Bob like``, ``what does my sister dislike``: the list read."""
    for verb, attribute in OTHERS_LISTED_LIKING:
        if low.endswith(verb) and (who := _someone(text[10 : len(text) - len(verb)])) not in (None, ME):
            return Parsed("read", (Ref(who, attribute),))
    return None


def _job(text: str, low: str) -> Parsed | None:
    """``I work as a nurse``, ``my sister works as a teacher``, ``I'm a nurse``, ``I am an electrical engineer``:
    the job, without its article and its workplace ("a nurse at the city hospital": nurse). "I am a …" names a
    job only when its last word is one of :data:`OCCUPATIONS` ("I'm a big fan of jazz" names none)."""
    for prefix in SAYING_WHO:
        if low.startswith((prefix + "a ", prefix + "an ")):
            job = _job_named(text[len(prefix) :])
            return _write(Ref(ME, JOB), job) if lower_ascii(job).rsplit(" ", 1)[-1] in OCCUPATIONS else None
    for copula in (" is a ", " is an ") if RELATION_JOB not in OLD_RULES.get() else ():  # "my sister is a nurse"
        if (at := low.find(copula)) > 0 and (who := _someone(text[:at])) is not None and who.kind == RELATION:
            job = _job_named(text[at + 4 :])
            return _write(Ref(who, JOB), job) if lower_ascii(job).rsplit(" ", 1)[-1] in OCCUPATIONS else None
    for verb in WORKING_AS:
        if (at := low.find(verb)) > 0 and (who := _someone(text[:at])) is not None:
            return _write(Ref(who, JOB), _job_named(text[at + len(verb) :]))
    return None


def _job_named(text: str) -> str:
    text = _first_clause(text.strip())
    low = lower_ascii(text)
    for article in ("a ", "an "):
        if low.startswith(article):
            text, low = text[len(article) :], low[len(article) :]
            break
    ends = [at for end in JOB_ENDS if (at := low.find(end)) > 0]
    return text[: min(ends)].strip(" ,") if ends else text.strip(" ,")


def _job_question(text: str, low: str) -> Parsed | None:
    """``what do I do``, ``what does my sister do for a living``, ``what does Bob work as``: the job asked."""
    aux = "what does " if low.startswith("what does ") else "what do " if low.startswith("what do ") else ""
    doing = next((doing for doing in DOING if low.endswith(doing)), None) if aux else None
    if doing is None:
        return None
    who = subject_of(text[len(aux) : len(text) - len(doing)])
    if who is None or (who.kind == WORLD and doing == " do"):  # "what does the company do?" asks no job
        return None
    return _read(Ref(who, JOB))


def _liking(text: str, low: str) -> Parsed | None:
    """``I like hiking``, ``I really love jazz``, ``I don't like hiking anymore``, ``I hate mushrooms``: the
    thing joins the user's likes (or dislikes) and leaves the other list."""
    found = _liking_verb(low, 2, LIKING_VERBS) if low.startswith("i ") else None
    return _preference(found[1], _liked_thing(text[found[0] :]), PREFER) if found is not None else None


def _asked_liking(text: str, low: str) -> Parsed | None:
    """``do I like hiking?``, ``do I still enjoy jazz``, ``do I hate mushrooms?``: the thing looked up in the
    list asked, then in the other."""
    found = _liking_verb(low, 5, ASKED_LIKING) if low.startswith("do i ") else None
    return _preference(found[1], _liked_thing(text[found[0] :]), ASK_PREFER) if found is not None else None


def _statement(text: str, low: str) -> Parsed | None:
    # each loop runs only when one of its words begins the line (one C call first: the usual line has none)
    if low.startswith("i ") and LIKES not in OLD_RULES.get() and (liked := _liking(text, low)) is not None:
        return liked
    old = OLD_RULES.get()
    if not low.startswith("i ") and OTHERS_LIKES not in old and (liked := _others_liking(text, low)) is not None:
        return liked
    if JOB_TOLD not in old and (job := _job(text, low)) is not None:
        return job
    if low.startswith(SET_VERBS):
        for verb in SET_VERBS:
            if low.startswith(verb) and (to := low.find(" to ", len(verb))) > 0:
                return _write(noun_ref(text[len(verb) : to]), text[to + 4 :])
    if low.startswith(NAMING_PREFIXES):
        for prefix in NAMING_PREFIXES:
            if low.startswith(prefix):
                return _write(Ref(ME, "name"), text[len(prefix) :])
    for prefix in SAYING_WHO:
        if low.startswith(prefix) and low.endswith(" years old") and low[len(prefix)].isdigit():
            return _write(Ref(ME, "age"), text[len(prefix) : -10])
        if low.startswith(prefix) and SAID_NAME not in OLD_RULES.get() and _said_name(text[len(prefix) :]):
            return _write(Ref(ME, "name"), text[len(prefix) :])
    for called in (" is called ", " is named ", " are called ", " are named "):
        if (at := low.find(called)) > 0 and (owner := subject_of(text[:at])) is not None:
            return _write(Ref(owner, "name"), text[at + len(called) :])
    if low.endswith(" years old") and (at := low.find(" is ")) > 0 and (owner := subject_of(text[:at])) is not None:
        return _write(Ref(owner, "age"), text[at + 4 : -10])
    stated = [(at, verb, attribute) for verb, attribute in STATED_VERBS if (at := low.find(verb)) > 0]
    if stated:
        at, verb, attribute = min(stated)
        owner = subject_of(text[:at])
        value = text[at + len(verb) :]
        if owner is not None:
            return _write(_born(owner, attribute, value), value)
    for active, was_by, were_by, role in ROLE_FORMS:
        if (at := low.find(was_by)) > 0 or (at := low.find(were_by)) > 0:
            by = low.find(" by ", at)
            work, author = subject_of(text[:at]), text[by + 4 :]
            return _write(Ref(work, role), author) if work is not None and work.kind == WORLD else None
        if (at := low.find(active)) > 0 and subject_of(text[:at]) not in (None, ME):
            work = subject_of(text[at + len(active) :])
            return _write(Ref(work, role), text[:at]) if work is not None and work.kind == WORLD else None
    found = [(at, copula) for copula in COPULAS if (at := low.find(copula)) > 0]
    if not found:
        return None
    at, copula = min(found)
    left, right = text[:at], text[at + len(copula) :]
    if (ref := noun_ref(left)) is not None:
        return _write(ref, right)
    right_low = lower_ascii(right)
    if right_low.startswith("in ") and (owner := subject_of(left)) not in (None, ME):
        return _write(Ref(owner, "location"), right[3:])  # "the Eiffel Tower is in Paris"
    if right_low.startswith(("the ", "my ")) and (ref := noun_ref(right)) is not None and _name_ok(left):
        return _write(ref, left)  # "Paris is the capital of France", "Maria is my wife"
    return None


def _forget(text: str, low: str) -> Parsed | None:
    rest = text[7:]
    rest_low = low[7:]
    if FORGET_FORMS not in OLD_RULES.get():
        return _forgotten(rest, rest_low)
    if rest_low.startswith("about "):
        rest, rest_low = rest[6:], rest_low[6:]
    if rest_low.startswith("what ") and rest_low.endswith(" is"):
        rest, rest_low = rest[5:-3], rest_low[5:-3]  # "forget what my name is"
    for word in ("where ", "who ", "when "):
        if rest_low.startswith(word):  # "forget where I live" asks "where do I live"
            found = _question(*_clean(f"{word}do {rest[len(word) :]}"))
            return Parsed("forget", found.refs) if found is not None else None
    ref = noun_ref(rest)
    return Parsed("forget", (ref,)) if ref is not None else None


def _forgotten(text: str, low: str) -> Parsed | None:
    """What ``forget TEXT`` forgets (:data:`FORGET_FORMS`): every ref that the question about it reads."""
    for lead in ("about ", "that "):
        if low.startswith(lead):
            text, low = text[len(lead) :], low[len(lead) :]
    if FORGET_MORE not in OLD_RULES.get() and (more := forget_more(text, low, subject_of)) is not None:
        return more  # "forget it", "forget everything about my sister"
    if low.startswith(WH_WORDS):  # "where my sister lives" asks "where does my sister live"
        spelled = " ".join("I am" if word.lower() in ("i'm", "im") else word for word in text.split())
        asked = _question(*_clean(strip_trailing(direct_question(spelled))))
        return Parsed("forget", asked.refs) if asked is not None and asked.op == "read" else None
    stated = _statement(text, low)  # "that I live in Berlin"
    if stated is not None and stated.op == PREFER and FORGET_MORE not in OLD_RULES.get():  # "that I like hiking"
        return Parsed(FORGET_PREFER, stated.refs, stated.value, stated.things)
    if stated is not None and stated.op == "write":
        named: list[Ref | None] = [stated.refs[0]]
    else:
        named = (_listed(text, low) if " and " in low else None) or [noun_ref(text)]
    refs: list[Ref | None] = []
    for ref in named:
        if ref is None:
            return None
        addressed = lower_ascii(ref.attribute) in ADDRESSES  # "my sister's address": her home too
        refs.extend([ref, Ref(ref.subject, "home")] if addressed else [ref])
    read = _read(*refs)
    return Parsed("forget", read.refs) if read is not None else None


def _listed(text: str, low: str) -> list[Ref | None] | None:
    """``my name and my age`` → both refs; None unless every part names one ("the capital of Bosnia and
    Herzegovina" is one)."""
    refs: list[Ref | None] = []
    start = 0
    for part in low.split(" and "):
        if (ref := noun_ref(text[start : start + len(part)])) is None:
            return None
        refs.append(ref)
        start += len(part) + 5
    return refs


_ASKED_INSIDE = re.compile(r"(?:^|[\s,.;:!])((?:what|who|where|when|which|how)\b.*)$", re.IGNORECASE)


def _asked_inside(text: str, low: str) -> Parsed | None:
    """The question a line asks after something else ("Greetings. What is my dog called?"); None if none."""
    found = _ASKED_INSIDE.search(text)
    if found is None:
        return None
    question = strip_trailing(found.group(1))
    return _question(question, lower_ascii(question))


def parse(text: str) -> Parsed | None:
    """The fact a line states, asks or asks to forget; None when it is none of these (frozen: cached)."""
    return _parse(text, OLD_RULES.get())


def parsed_under(text: str, rules: int) -> Parsed | None:
    """:func:`parse` with only the first ``rules`` of :data:`CHANGES` in force (0: as 0d8cf16 read it)."""
    return _parse(text, frozenset(CHANGES[rules:]))


def _says_someones(low: str) -> bool:
    """Whether the lowered line has a person noun after an "'s" ("bob's sister"): what :data:`OWNED_SUBJECT` reads."""
    low = low.replace("’", "'")
    at = low.find("'s ")
    while at >= 0:  # each "'s " once, its next word looked up: linear in the line
        if low[at + 3 : at + 3 + 16].split(" ", 1)[0].strip(".,;:!?'\"").removesuffix("'s") in PEOPLE:
            return True
        at = low.find("'s ", at + 3)
    return False


def reads_otherwise(text: str) -> bool:
    """Whether ``text`` parsed otherwise before any of :data:`CHANGES` than it does now."""
    low = text.lower()
    if (
        not any(part in low for part in MAY_DIFFER)
        and not _says_someones(low)
        and not _names_beside(text)
        and not _ends_marked(text)
    ):
        return False  # the usual line: no parse
    now = parse(text)
    return any(parsed_under(text, rules) != now for rules in range(len(CHANGES)))


def _ends_marked(text: str) -> bool:
    """Whether the line ends with a chat marker the ``chat_markers`` change cuts ("… Dan lol"): a test of its last
    words, where a substring test of the markers ("ha", ":") matched nearly every question ("what …"). The line
    as typed is enough: :func:`_clean` changes only its start and its end punctuation, which the test skips."""
    return without_markers(text) != text


@functools.lru_cache(maxsize=64)  # a pure function of the line, asked by several agents' matches in one tick
def _parse(text: str, old: frozenset[str]) -> Parsed | None:
    """:func:`parse` without the changes in ``old``."""
    token = OLD_RULES.set(old)
    try:
        return _parse_line(text)
    finally:
        OLD_RULES.reset(token)


def _parse_line(text: str) -> Parsed | None:
    if "\n" in text.strip():
        return None
    asked = text.rstrip().endswith("?")
    text, low = _clean(text)
    if CHAT_MARKERS not in OLD_RULES.get() and (unmarked := without_markers(text)) != text:
        text, low = _clean(unmarked)  # "my name is Dan lol": Dan
    if not text:
        return None
    if low.startswith(ASKING_TO_FORGET) and FORGET_FORMS not in OLD_RULES.get():  # "can you forget my name?"
        text = text[low.find("forget ") :]
        low = lower_ascii(text)
    if low.startswith("forget "):
        text = strip_trailing(text)  # "forget my name, please"
        return _forget(text, lower_ascii(text))
    if low.startswith(("remember that ", "remember ")) and not low.startswith("remember when"):
        inner = text[14:] if low.startswith("remember that ") else text[9:]
        return _statement(*_clean(inner))
    if low.startswith(WH_WORDS) or low.startswith(ASKING):
        text = strip_trailing(text)  # "what was my favorite color again?" asks "what was my favorite color"
        return _question(text, lower_ascii(text))
    if low.startswith("do i ") and LIKES not in OLD_RULES.get():
        text = strip_trailing(text)
        return _asked_liking(text, lower_ascii(text))
    if low.startswith("does ") and OTHERS_LIKES not in OLD_RULES.get():
        text = strip_trailing(text)
        if (liked := _others_asked_liking(text, lower_ascii(text))) is not None:
            return liked
    # a question never states a fact: "you bot, what is my weight?" stored "you bot, what" as it, and
    # "are you sure about who wrote Hamlet" (no "?") stored "are you sure about who" as Hamlet's author
    if asked or low.startswith(SURE_ASKING):
        return _asked_inside(text, low)
    text = strip_trailing(text, bare=False)  # "my name is Ada, by the way"
    return _statement(text, lower_ascii(text))


__all__ = [
    "ASK_PREFER",
    "CHANGES",
    "DISLIKED",
    "FORGET_FORMS",
    "LIKED",
    "LIKES",
    "MATH_WORDS",
    "OLD_RULES",
    "OTHERS_POSSESSIVE",
    "OWNED_SUBJECT",
    "PEOPLE",
    "PREFER",
    "RELATION",
    "REMIND_WHEN",
    "SAID_NAME",
    "SELF",
    "WORLD",
    "Parsed",
    "Ref",
    "Subject",
    "noun_ref",
    "parse",
    "parsed_under",
    "reads_otherwise",
    "subject_of",
]
