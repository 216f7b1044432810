"""Stage-0's parse changes: each a changed way of reading a line, named, oldest first (:data:`CHANGES`).

A journal was read under the first N of them; :mod:`agi_core.brain.stage0.changes` keeps each journal read as it
was written (the ``parse_rules`` external). :mod:`agi_core.brain.stage0.facts` re-exports every name.
"""

from __future__ import annotations

#: the parse rules changed since journals were first written (0d8cf16), oldest first: a journal was read under
#: the first N of them (see agi_core.brain.stage0.changes, which keeps each journal read as it was written)
OTHERS_POSSESSIVE = "others_possessive"
"""'your sister', 'his brother' name no thing (before: world/entity/your_sister)."""
SAID_NAME = "said_name"
"""'I am Dana' / "I'm Dana" name the user, and a leading hi/hello (… there) is a filler (before: neither)."""
OWNED_SUBJECT = "owned_subject"
"""'Bob's sister' is someone of Bob's (before: no subject; 'Bob's sister's name' a thing Bob's attribute)."""
NAMED_BESIDE = "named_beside"
"""'my brother Tom' is the brother, named Tom, as 'my brother' (before: a relation called 'brother Tom')."""
LIKES = "likes"
"""'I like hiking', 'I hate mushrooms', 'do I like hiking?', 'what do I like?' are the user's likes and dislikes
(before: nothing, F3)."""
CLAUSE_END = "clause_end"
"""'I live in Lisbon and I work as a nurse': a stated value ends where another clause begins ('Lisbon'; before:
'Lisbon and I work as a nurse')."""
REMIND_WHEN = "remind_when"
"""'remind me to call Ana tomorrow at 9', '… on Monday at 10am', '… tonight at 8', 'remind me in 2 hours to …' set a
reminder then, a time not read gets one line (see agi_core.scheduling.remind_when; before: 'at 5pm', 'at 17:30'
and 'in 10 minutes' only, 'call Ana tomorrow' at the next 09:00 for 'remind me to call Ana tomorrow at 9am', others
F3). Read by the goal agent's goal_request, not by parse."""
FORGET_FORMS = "forget_forms"
""""forget X" forgets what "what is X?" reads, a person named either way both ways; X may be an indirect question
("forget where my sister lives", "… where I was born", "… who wrote Hamlet"), a statement ("forget that I live in
Berlin") or an address ("my sister's address": her home too); "can you forget …" asks it (before: only a noun, or
"where/who/when X" read as "where do X", each forgetting the noun's own key; the rest nothing)."""
JOB_TOLD = "job"
"""'I work as a nurse', "I'm a nurse" (a known occupation), 'my sister works as a teacher' are a job (``…/job``, the
synonyms' key of job, occupation, profession), and 'what do I do?' asks it (before: nothing, F3)."""
LIKED_APART = "liked_apart"
"""'I like hiking and jazz' likes two things, 'I don't like mushrooms or olives' dislikes two; 'rock and roll' stays
one (:data:`WHOLE_THINGS`; before: one thing, 'hiking and jazz')."""
OTHERS_LIKES = "others_likes"
"""'Bob likes jazz', 'my sister doesn't like coffee', 'does Bob like jazz?', 'what does my sister like?' are
someone else's likes and dislikes (before: nothing, F3)."""
MATH_WORDS = "math_words"
"""'sqrt(16) + 2', 'what is 15% of 80?', "what's 3 squared", 'square root of 2', '3 plus 4' are arithmetic for the math
agent (mathparse.spoken; before: not arithmetic, F3). Read by agents.MathAgent, not by :func:`~.facts.parse`."""
FORGET_MORE = "forget_more"
"""'forget that I like hiking' takes hiking off the likes (likewise a dislike), 'forget it' / 'forget that' forgets what
the line before stored, 'forget everything about my sister' every fact of hers (see forget_more and forgetting; before:
nothing, F3)."""
RELATION_JOB = "relation_job"
"""'my sister is a nurse', "Bob's sister is an engineer" (a known occupation after 'is a/an') are her job (``…/job``,
asked by 'what does my sister do?'; before: the relation itself, ``user/person/self/sister`` = 'a nurse')."""
CHAT_MARKERS = "chat_markers"
"""'hey, my name is Dan lol', 'I live in Lisbon haha', 'my dog is called Rex :)': trailing chat markers are not part
of the line (see markers; before: the value 'Dan lol')."""
GOAL_ASKS = "goal_asks"
"""'how many goals do I have?' (counted by status) and 'what is my active goal?' are the goal agent's, answered
from the goal store (before: F3, or a module's quote of a line; the second F1). Read by the goal agent's
goal_request, not by parse."""
CHANGES = (
    OTHERS_POSSESSIVE,
    SAID_NAME,
    OWNED_SUBJECT,
    NAMED_BESIDE,
    LIKES,
    CLAUSE_END,
    REMIND_WHEN,
    FORGET_FORMS,
    JOB_TOLD,
    LIKED_APART,
    OTHERS_LIKES,
    MATH_WORDS,
    FORGET_MORE,
    RELATION_JOB,
    CHAT_MARKERS,
    GOAL_ASKS,
)
