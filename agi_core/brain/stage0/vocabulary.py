"""The words Stage-0's fact parser (:mod:`.facts`) looks for: fillers, verbs, names and nouns, as data.

Each table is read by a ``str.startswith`` / ``str.find`` test, or a set lookup: the parse stays linear in the
line. The parser's rules, and the changes that gate them for old journals, are in :mod:`.facts`.
"""

from __future__ import annotations

#: leading greetings that are fillers since the ``said_name`` change (:data:`.facts.CHANGES`)
GREETINGS = ("hi there", "hello there", "hey there", "hi", "hello")
FILLERS_BEFORE = (
    "actually",
    "no",
    "oh",
    "well",
    "ok",
    "okay",
    "so",
    "and",
    "also",
    "btw",
    "by the way",
    "hey",
    "please",
    "just",
    "fyi",
    "correction",
    "oops",
    "sorry",
    "wait",
)
FILLERS = GREETINGS + FILLERS_BEFORE
ASKING = ("tell me ", "can you tell me ", "could you tell me ", "do you know ", "do you remember ", "remind me of ")
WH_WORDS = ("what", "who", "where", "when", "which", "how")
COPULAS = (" is ", " are ", " was ", " were ")
NOT_NAMES = frozenset(
    {"it", "that", "this", "there", "here", "he", "she", "they", "we", "you", "what", "who", "where", "let", "i"}
)
#: possessives other than "my": "your sister", "his brother" are someone of whom the line does not say (the
#: listener, a person named elsewhere), never a thing named "your sister"; another agent's reply speaks so
OTHERS_POSSESSIVES = ("your ", "his ", "her ", "their ", "our ", "its ")
#: the attributes of the user's likes and dislikes, each a list of the things as the user wrote them
LIKED, DISLIKED = "likes", "dislikes"
#: the ops of a line about them: ``refs`` (what the thing joins, what it leaves) and the thing in ``value``
PREFER, ASK_PREFER = "prefer", "ask_prefer"
#: ``I VERB X`` → the attribute X joins (longest first where one begins another)
LIKING_VERBS = (
    *((f"{neg} {verb} ", DISLIKED) for neg in ("don't", "dont", "do not", "no longer") for verb in ("like", "enjoy")),
    *((f"{verb} ", DISLIKED) for verb in ("dislike", "hate", "detest", "can't stand", "cannot stand", "can not stand")),
    *((f"{verb} ", LIKED) for verb in ("like", "love", "enjoy", "adore")),
)
#: ``do I VERB X`` → the attribute asked first
ASKED_LIKING = (("like ", LIKED), ("love ", LIKED), ("enjoy ", LIKED), ("dislike ", DISLIKED), ("hate ", DISLIKED))
#: ``what do I like`` → the attribute read
LISTED_LIKING = {
    **{f"what do i {verb}": LIKED for verb in ("like", "love", "enjoy")},
    **{f"what {neg}": DISLIKED for neg in ("do i dislike", "do i hate", "don't i like", "do i not like")},
}
LIKING_ADVERBS = ("really ", "also ", "still ", "truly ", "absolutely ", "totally ", "do ")
LIKING_ENDS = tuple(" anymore| any more| a lot| very much| so much| too| as well| either| again| now".split("|"))
#: a first word that makes ``I like X`` no liking of a thing: "I like it when …", "I love you", "I like to think …"
NOT_LIKED = frozenset(
    "it that this these those you him her them me us when how what where who why if your his their our its to".split()
)
#: the nouns that name someone of a person's in "Bob's sister" (not "France's capital": a thing's attribute)
PEOPLE = frozenset(
    """sister brother mother father mom mum dad parents wife husband son daughter child children kids friend boss
    partner girlfriend boyfriend cousin aunt uncle grandmother grandfather grandma grandpa niece nephew colleague
    coworker roommate neighbor neighbour fiance fiancee dog cat""".split()
)
#: verb phrases of a statement ``SUBJECT VERB VALUE`` → the attribute they set
STATED_VERBS = (
    (" lives in ", "home"),
    (" live in ", "home"),
    (" lived in ", "home"),
    (" works at ", "workplace"),
    (" work at ", "workplace"),
    (" works for ", "workplace"),
    (" work for ", "workplace"),
    (" works in ", "workplace"),
    (" work in ", "workplace"),
    (" grew up in ", "home_town"),
    (" studies at ", "school"),
    (" study at ", "school"),
    (" is from ", "home_town"),
    (" am from ", "home_town"),
    (" are from ", "home_town"),
    (" was born on ", "birth_date"),
    (" were born on ", "birth_date"),
    (" was born in ", "birth_place"),  # a year ("in 1756") is a birth date: see _born
    (" were born in ", "birth_place"),
)
#: ``who/where (do|does|did) SUBJECT VERB [preposition]`` → the attribute asked
ASKED_VERBS = {
    "live": "home",
    "live in": "home",
    "work": "workplace",
    "work at": "workplace",
    "work for": "workplace",
    "work in": "workplace",
    "grow up": "home_town",
    "come from": "home_town",
    "study": "school",
    "study at": "school",
}
#: ``A wrote W`` / ``W was written by A`` / ``who wrote W?`` → world/entity/W/<role>
ROLES = (
    ("wrote", "written", "author"),
    ("painted", "painted", "painter"),
    ("directed", "directed", "director"),
    ("invented", "invented", "inventor"),
    ("composed", "composed", "composer"),
    ("founded", "founded", "founder"),
    ("discovered", "discovered", "discoverer"),
    ("designed", "designed", "designer"),
    ("built", "built", "builder"),
    ("created", "created", "creator"),
    ("sang", "sung", "singer"),
    ("produced", "produced", "producer"),
)
#: ROLES as the statement parser looks for them: `` wrote ``, `` was written by ``, `` were written by ``
ROLE_FORMS = tuple(
    (f" {active} ", f" was {passive} by ", f" were {passive} by ", role) for active, passive, role in ROLES
)
SET_VERBS = ("set ", "change ", "update ", "make ")
SAYING_WHO = ("i am ", "i'm ")
#: capitalised words that say what someone is, not who: "I am French" names no one
NOT_A_NAME = frozenset(
    """american african arab asian australian austrian belgian brazilian british buddhist canadian catholic chinese
    czech danish dutch egyptian english european filipino finnish french german greek hindu hungarian indian irish
    israeli italian japanese jewish korean mexican muslim norwegian pakistani polish portuguese romanian russian
    scottish spanish swedish swiss thai turkish ukrainian vietnamese welsh
    afraid alive alone also always angry asleep at awake back bored busy cold done fine from glad going good happy
    here home hot hungry in just not now ok okay on ready really sad sick so sorry still sure thirsty tired very
    well with""".split()
)
NAMING_PREFIXES = ("call me ", "i am called ", "i'm called ", "i am named ", "i'm named ", "my name's ")
#: ``are you sure about X``: a question with or without its "?" (the beliefs module answers it)
SURE_ASKING = tuple(
    f"{are} {you} {sure} " for are in ("are", "r") for you in ("you", "u") for sure in ("sure", "certain")
)
#: ``what day is my meeting?``: a question word naming the kind of answer, then a copula
KIND_WORDS = ("day", "time", "date", "year", "color", "colour", "kind of", "type of", "place", "city")
#: the user's or someone's job: ``I work as a nurse``, ``my sister works as a teacher``, ``I'm a nurse``
JOB = "job"
WORKING_AS = (" works as ", " work as ")
#: where a told job ends: its workplace or another part ("a nurse at the city hospital", "a nurse and a mother")
JOB_ENDS = (" at ", " for ", " in ", " with ", " and ", " but ", ", ")
#: ``what do I do``, ``what does my sister do for a living``: the job asked (a named thing only with the longer
#: forms: "what does the company do?" asks no job)
DOING = (" do for a living", " do for work", " do professionally", " work as", " do")
#: the last word of ``I am a/an X`` that makes X a job ("I'm a nurse"; "I'm a big fan" names none)
OCCUPATIONS = frozenset(
    """accountant actor actress analyst architect artist astronaut athlete attorney baker banker barber barista
    bartender biologist bookkeeper builder butcher buyer carpenter cashier chef chemist cleaner clerk coach
    consultant cook counselor counsellor courier dancer dentist designer detective developer dietitian director
    doctor driver economist editor electrician engineer entrepreneur farmer firefighter fisherman florist
    gardener geologist guard hairdresser historian housekeeper illustrator instructor interpreter janitor
    journalist judge labourer laborer lawyer lecturer librarian lifeguard linguist locksmith machinist manager
    mathematician mechanic midwife miner model musician nanny nurse optician optometrist painter paramedic
    pharmacist photographer physician physicist physiotherapist pilot plumber poet police policeman policewoman
    politician postman producer professor programmer psychiatrist psychologist receptionist recruiter
    reporter researcher retiree salesman saleswoman salesperson scientist secretary singer soldier statistician
    student surgeon surveyor tailor teacher technician therapist trainer translator tutor veterinarian vet
    waiter waitress welder writer""".split()
)
#: ``SUBJECT VERB X`` → the attribute X joins, for someone other than the user ("Bob likes jazz")
OTHERS_LIKING_VERBS = (
    *((f" {neg} {verb} ", DISLIKED) for neg in ("doesn't", "doesnt", "does not") for verb in ("like", "enjoy")),
    *((f" no longer {verb} ", DISLIKED) for verb in ("likes", "enjoys")),
    *((f" {verb} ", DISLIKED) for verb in ("dislikes", "hates", "detests", "can't stand", "cannot stand")),
    *((f" {verb} ", LIKED) for verb in ("likes", "loves", "enjoys", "adores")),
)
#: ``does SUBJECT VERB X`` → the attribute asked first; ``what does SUBJECT VERB`` → the attribute read
OTHERS_ASKED_LIKING = tuple((f" {verb}", attribute) for verb, attribute in ASKED_LIKING)
OTHERS_LISTED_LIKING = (
    (" not like", DISLIKED),
    (" dislike", DISLIKED),
    (" hate", DISLIKED),
    (" like", LIKED),
    (" love", LIKED),
    (" enjoy", LIKED),
)
#: adverbs between a subject and its liking verb ("my sister really loves tea")
OTHERS_ADVERBS = ("really", "also", "still", "truly", "absolutely", "totally", "just")
#: capitalised words that begin a statement without naming someone ("Everyone likes pizza")
NOT_SOMEONE = frozenset(
    """everyone everybody nobody someone somebody anyone anybody people no one all most many some
    kids children men women""".split()
)
#: things with an "and" (or "&") in them, each one thing: "I like rock and roll" likes one
WHOLE_THINGS = (
    "rock and roll",
    "rock & roll",
    "rhythm and blues",
    "drum and bass",
    "r and b",
    "salt and pepper",
    "salt and vinegar",
    "fish and chips",
    "mac and cheese",
    "macaroni and cheese",
    "bread and butter",
    "peanut butter and jelly",
    "strawberries and cream",
    "gin and tonic",
    "rum and coke",
    "milk and cookies",
    "sweet and sour",
    "black and white",
    "arts and crafts",
    "hide and seek",
    "bed and breakfast",
    "pride and prejudice",
    "war and peace",
    "romeo and juliet",
    "tom and jerry",
    "simon and garfunkel",
    "dungeons and dragons",
    "law and order",
    "pen and paper",
    "trial and error",
    "cops and robbers",
)
#: ``can you forget X`` asks to forget X (the ``forget_forms`` change, :data:`.facts.CHANGES`)
ASKING_TO_FORGET = tuple(
    f"{ask} {please}forget "
    for ask in ("can you", "could you", "would you", "will you", "i want you to", "i'd like you to")
    for please in ("", "please ")
)
#: an attribute that says where someone lives: forgetting it forgets their ``home`` too
ADDRESSES = frozenset({"address", "home address", "street address"})
#: where a stated value ends because another clause begins: a conjunction and a new subject, or a semicolon
NEXT_CLAUSE = (
    *(
        f" {joint} {subject} "
        for joint in ("and", "but", "so", "because", "while")
        for subject in ("i", "i'm", "my", "we", "he", "she", "they", "it's")
    ),
    "; ",
)
