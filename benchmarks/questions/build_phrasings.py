"""Writes phrasings.jsonl: each fact told in several ways, asked in several ways (run once; the file is committed).

The seeds' own examples (MACE Stage-0: "my favorite …", "the capital of France"; the README's
"my dog is called Rex"; issue 22's "where does my sister live?", "who wrote Hamlet?", "my
favorite hue is teal") and new everyday ones. A case is ``{"setup": [...], "question": ...,
"expect": ...}``: the reply must contain ``expect`` (case-insensitive); ``"expect": null`` means
the agent must say it does not know (F1), never a guess (S9).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

F1 = None  # the question must get the rulebook's F1 ("I don't have this information stored yet.")

GROUPS: list[tuple[list[str], list[str], str | None]] = [
    (  # MACE R2, with S4 synonyms
        [
            "my favorite color is teal",
            "my favourite colour is teal",
            "my favorite hue is teal",
            "set my favorite color to teal",
            "remember that my fave colour is teal",
        ],
        [
            "what is my favorite color?",
            "what's my favourite colour?",
            "what is my favourite hue?",
            "what is my fave color",
            "tell me my favorite colour",
        ],
        "teal",
    ),
    (
        ["my favorite food is sushi", "my favourite dish is sushi", "set my favorite meal to sushi"],
        ["what is my favorite food?", "what's my favourite dish?", "what is my favorite meal?"],
        "sushi",
    ),
    (
        ["my favorite movie is Alien", "my favourite film is Alien", "set my favourite film to Alien"],
        ["what is my favorite movie?", "what's my favourite film?", "what is my fave movie?"],
        "Alien",
    ),
    (
        ["my favorite song is Yesterday", "my favourite tune is Yesterday"],
        ["what is my favorite song?", "what's my favourite tune?", "what is my favorite track?"],
        "Yesterday",
    ),
    (
        ["my favorite book is Dune", "my favourite novel is Dune"],
        ["what is my favorite book?", "what's my favourite novel?"],
        "Dune",
    ),
    (
        ["my favorite sport is tennis", "my favourite game is tennis"],
        ["what is my favorite sport?", "what's my favourite sport?"],
        "tennis",
    ),
    (  # the README's example
        ["my dog is called Rex", "my dog's name is Rex", "my dog is named Rex", "the name of my dog is Rex"],
        ["what is my dog called?", "what is my dog's name?", "what's the name of my dog?", "what's my dog called"],
        "Rex",
    ),
    (
        ["my cat is called Tom", "my cat's name is Tom", "my kitty is named Tom"],
        ["what is my cat called?", "what is my cat's name?", "what's my kitty's name?"],
        "Tom",
    ),
    (
        ["my name is Alice", "call me Alice", "I am called Alice", "my first name is Alice"],
        ["what is my name?", "what's my name?", "who am I?", "what am I called?"],
        "Alice",
    ),
    (
        ["my sister lives in Lyon", "my sister's home is Lyon", "my sis lives in Lyon"],
        ["where does my sister live?", "where does my sis live", "what is my sister's home?"],
        "Lyon",
    ),
    (
        ["my brother lives in Oslo", "my bro lives in Oslo"],
        ["where does my brother live?", "where does my bro live?"],
        "Oslo",
    ),
    (
        ["my mother lives in Rome", "my mom lives in Rome", "my mum lives in Rome"],
        ["where does my mother live?", "where does my mum live?", "where does my mom live?"],
        "Rome",
    ),
    (
        ["I live in Berlin", "my home is Berlin", "I live in Berlin now"],
        ["where do I live?", "what is my home?", "where is my home?"],
        "Berlin",
    ),
    (
        ["I work at Acme", "I work for Acme", "my workplace is Acme", "my employer is Acme"],
        ["where do I work?", "who do I work for?", "what is my employer?"],
        "Acme",
    ),
    (
        ["my job is nurse", "my occupation is nurse", "my profession is nurse"],
        ["what is my job?", "what's my occupation?", "what is my profession?"],
        "nurse",
    ),
    (
        ["my birthday is May 3", "my birth date is May 3", "I was born on May 3"],
        ["when is my birthday?", "when was I born?", "what is my date of birth?"],
        "May 3",
    ),
    (
        ["I was born in Porto", "my birthplace is Porto"],
        ["where was I born?", "what is my birthplace?"],
        "Porto",
    ),
    (
        ["I am 34 years old", "my age is 34", "I'm 34 years old"],
        ["how old am I?", "what is my age?", "what's my age"],
        "34",
    ),
    (
        ["my phone number is 555 0101", "my phone is 555 0101", "my telephone number is 555 0101"],
        ["what is my phone number?", "what's my telephone number?", "what is my phone?"],
        "555 0101",
    ),
    (
        ["my wife is Maria", "my wife's name is Maria", "my wife is called Maria"],
        ["who is my wife?", "what is my wife's name?", "what is my wife called?"],
        "Maria",
    ),
    (
        ["my doctor is Dr Lee", "my physician is Dr Lee"],
        ["who is my doctor?", "who's my physician?"],
        "Dr Lee",
    ),
    (
        ["my car is a Volvo", "my automobile is a Volvo"],
        ["what is my car?", "what's my automobile?"],
        "Volvo",
    ),
    (
        ["my meeting is on Tuesday", "my meeting is Tuesday"],
        ["when is my meeting?", "what day is my meeting?"],
        "Tuesday",
    ),
    (  # MACE R3
        ["the capital of France is Paris", "Paris is the capital of France", "France's capital is Paris"],
        [
            "what is the capital of France?",
            "what's the capital of France?",
            "what is France's capital?",
            "tell me the capital of France",
            "do you know the capital of France?",
        ],
        "Paris",
    ),
    (
        ["the capital of Japan is Tokyo", "Tokyo is the capital of Japan"],
        ["what is the capital of Japan?", "what's Japan's capital?"],
        "Tokyo",
    ),
    (
        ["Shakespeare wrote Hamlet", "Hamlet was written by Shakespeare", "the author of Hamlet is Shakespeare"],
        ["who wrote Hamlet?", "who is the author of Hamlet?", "who was Hamlet written by?"],
        "Shakespeare",
    ),
    (
        ["Orwell wrote 1984", "1984 was written by Orwell"],
        ["who wrote 1984?", "who is the author of 1984?"],
        "Orwell",
    ),
    (
        ["Da Vinci painted the Mona Lisa", "the Mona Lisa was painted by Da Vinci"],
        ["who painted the Mona Lisa?", "who is the painter of the Mona Lisa?"],
        "Da Vinci",
    ),
    (
        ["Bell invented the telephone", "the telephone was invented by Bell"],
        ["who invented the telephone?", "who is the inventor of the telephone?"],
        "Bell",
    ),
    (
        ["Spielberg directed Jaws", "Jaws was directed by Spielberg"],
        ["who directed Jaws?", "who is the director of Jaws?"],
        "Spielberg",
    ),
    (
        ["the Eiffel Tower is in Paris", "the location of the Eiffel Tower is Paris"],
        ["where is the Eiffel Tower?", "what is the location of the Eiffel Tower?"],
        "Paris",
    ),
    (
        ["Alice lives in Madrid", "Alice's home is Madrid"],
        ["where does Alice live?", "what is Alice's home?"],
        "Madrid",
    ),
    (
        ["the population of Peru is 34 million", "Peru's population is 34 million"],
        ["what is the population of Peru?", "what's Peru's population?"],
        "34 million",
    ),
    (
        ["the boiling point of water is 100 C"],
        ["what is the boiling point of water?", "what's the boiling point of water?"],
        "100 C",
    ),
    (
        ["my hometown is Leeds", "my home town is Leeds", "I grew up in Leeds"],
        ["what is my hometown?", "where did I grow up?", "what's my home town?"],
        "Leeds",
    ),
    (
        ["my email is al@example.org", "my email address is al@example.org", "my e-mail is al@example.org"],
        ["what is my email?", "what's my email address?", "what is my e-mail address?"],
        "al@example.org",
    ),
    (
        ["Mozart was born in 1756", "Mozart's birth date is 1756"],
        ["when was Mozart born?", "what is Mozart's birth date?"],
        "1756",
    ),
]

UPDATES: list[tuple[list[str], str, str | None]] = [
    (["my name is Alice", "actually my name is Carol"], "what is my name?", "Carol"),
    (["my name is Alice", "actually, my name is Carol"], "what's my name?", "Carol"),
    (["my name is Alice", "no, my name is Carol"], "what is my name?", "Carol"),
    (["my favorite color is blue", "set my favorite color to red"], "what is my favorite color?", "red"),
    (["my favorite color is blue", "change my favourite colour to red"], "what is my favorite color?", "red"),
    (["my favorite color is blue", "update my favorite color to red"], "what's my favourite colour?", "red"),
    (["my favorite color is blue", "actually my favourite hue is red"], "what is my favorite color?", "red"),
    (["I live in Berlin", "I live in Munich now"], "where do I live?", "Munich"),
    (["my sister lives in Lyon", "my sister lives in Nice"], "where does my sister live?", "Nice"),
    (
        ["the capital of France is Lyon", "actually the capital of France is Paris"],
        "what is the capital of France?",
        "Paris",
    ),
    (["my name is Alice", "forget my name"], "what is my name?", F1),
    (["my favorite color is blue", "forget my favorite color"], "what is my favorite color?", F1),
    (["my favorite color is blue", "forget my favourite colour"], "what's my favorite color?", F1),
    (["my dog is called Rex", "forget my dog's name"], "what is my dog called?", F1),
    (["the capital of France is Paris", "forget the capital of France"], "what is the capital of France?", F1),
    (["I live in Berlin", "forget where I live"], "where do I live?", F1),
    (["my name is Alice", "forget my name", "my name is Bea"], "what is my name?", "Bea"),
    (["my favorite color is blue", "forget my favorite color"], "what is my favorite food?", F1),
]

#: Questions that end in words asking nothing ("again", "please", "now", "by the way"): the key is the fact's.
TRAILING: list[tuple[list[str], str, str | None]] = [
    (["my favorite color is teal"], "what was my favorite color again?", "teal"),
    (["my favorite color is teal"], "what is my favorite color, please?", "teal"),
    (["my favorite color is teal"], "what's my favourite colour now?", "teal"),
    (["my favorite color is teal"], "what was my favorite color again, please?", "teal"),
    (["my favorite color is teal, by the way"], "what is my favorite color?", "teal"),
    (["my name is Alice"], "what is my name again?", "Alice"),
    (["my name is Alice"], "what's my name, by the way?", "Alice"),
    (["my sister lives in Lyon"], "where does my sister live again?", "Lyon"),
    (["my dog is called Rex"], "what is my dog called again?", "Rex"),
    (["I live in Berlin"], "where do I live, do you remember?", "Berlin"),
    (["I work at Acme"], "where do I work btw?", "Acme"),
    (["Shakespeare wrote Hamlet"], "who wrote Hamlet again?", "Shakespeare"),
    (["the capital of France is Paris"], "what is the capital of France, please?", "Paris"),
    (["my name is Alice", "forget my name, please"], "what is my name again?", F1),
    (["my favorite color is teal"], "what was my favorite food again?", F1),
    ([], "what was my favorite color again?", F1),
]

MISSES: list[str] = [
    "what is my favorite color?",
    "where does my sister live?",
    "who wrote Hamlet?",
    "what is the capital of Peru?",
    "what is my dog called?",
    "where do I live?",
    "how old am I?",
    "when is my birthday?",
    "who painted the Mona Lisa?",
    "what is my name?",
]


def cases() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for setups, questions, answer in GROUPS:
        for setup, question in itertools.product(setups, questions):
            out.append({"setup": [setup], "question": question, "expect": answer})
    out += [{"setup": setup, "question": question, "expect": answer} for setup, question, answer in UPDATES]
    out += [{"setup": [], "question": question, "expect": F1} for question in MISSES]
    out += [{"setup": setup, "question": question, "expect": answer} for setup, question, answer in TRAILING]
    # told about something else first: the question must not pick an unrelated fact
    out += [
        {"setup": ["my favorite color is teal"], "question": "what is my favorite food?", "expect": F1},
        {"setup": ["the capital of France is Paris"], "question": "what is the capital of Germany?", "expect": F1},
        {"setup": ["my sister lives in Lyon"], "question": "where does my brother live?", "expect": F1},
        {"setup": ["Shakespeare wrote Hamlet"], "question": "who wrote Macbeth?", "expect": F1},
        {"setup": ["my dog is called Rex"], "question": "what is my cat called?", "expect": F1},
    ]
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("phrasings.jsonl")
    rows = cases()
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(f"{len(rows)} phrasings written to {path}")
