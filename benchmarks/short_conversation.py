"""The conversation the idle benchmarks give an agent first (``journal_growth.py``, ``autonomy_idle_tick.py``):
a person mentioned, a goal set, a fact, a question, so that working memory holds turns and a goal, as a
user's agent does before it goes idle."""

LINES = (
    "my sister Maya is coming over",
    "my goal is to learn French and visit Paris",
    "the capital of Peru is Lima",
    "whats the weather like",
    "I like my blue bike",
    "what is the capital of Peru?",
)
