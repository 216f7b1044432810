"""Date parsing and query analysis (speakers, content words, date windows)."""

from __future__ import annotations

from datetime import date

from agi_core.longterm import parse_timestamp, query_window
from agi_core.longterm.query import analyze, plain_expression


def test_parse_locomo_session_date() -> None:
    assert parse_timestamp("1:56 pm on 8 May, 2023") == "2023-05-08T13:56:00"
    assert parse_timestamp("12:09 am on 13 September, 2023") == "2023-09-13T00:09:00"
    assert parse_timestamp("10:37 am on 27 June, 2023") == "2023-06-27T10:37:00"


def test_parse_other_forms() -> None:
    assert parse_timestamp("2024-02-29T07:05:09Z") == "2024-02-29T07:05:09"
    assert parse_timestamp("March 3, 2023") == "2023-03-03T00:00:00"
    assert parse_timestamp("3rd March 2023") == "2023-03-03T00:00:00"
    assert parse_timestamp("yesterday") is None
    assert parse_timestamp(None) is None
    assert parse_timestamp("31 February, 2023") is None


def test_query_windows() -> None:
    day = query_window("What movie did Joanna watch on 1 May, 2022?")
    assert (day.start, day.end) == (date(2022, 5, 1), date(2022, 5, 1))
    mdy = query_window("Who did Maria have dinner with on May 3, 2023?")
    assert (mdy.start, mdy.end) == (date(2023, 5, 3), date(2023, 5, 3))
    before = query_window("What did Maria do last weekend before April 10, 2023?")
    assert (before.start, before.end) == (date(2023, 3, 11), date(2023, 4, 10))
    month = query_window("What workout class did Maria start in December 2023?")
    assert (month.start, month.end) == (date(2023, 12, 1), date(2023, 12, 31))
    year = query_window("How many times has Melanie gone to the beach in 2023?")
    assert (year.start, year.end) == (date(2023, 1, 1), date(2023, 12, 31))
    bare = query_window("When did Melanie go camping in June?")
    assert bare.month_only and bare.month == 6
    assert query_window("What did Caroline research?") is None


def test_window_contains_with_slack() -> None:
    window = query_window("What did Gina find on 1 February, 2023?")
    assert window.contains("2023-02-01T10:00:00", 14)
    assert window.contains("2023-02-15T10:00:00", 14)
    assert not window.contains("2023-02-16T10:00:00", 14)
    assert not window.contains("2023-01-31T23:00:00", 14)
    assert not window.contains(None, 14)
    june = query_window("camping in June?")
    assert june.contains("2021-06-30T00:00:00", 0)
    assert june.contains("2023-07-10T00:00:00", 14)  # told in the days after
    assert not june.contains("2023-08-01T00:00:00", 14)


def test_analyze_takes_speakers_out_of_the_words() -> None:
    info = analyze("What did Caroline research about adoption?", ["Caroline", "Melanie"])
    assert info.speakers == ("Caroline",)
    assert info.words == ("research", "adoption")
    assert info.fts_expression() == '"research" OR "adoption"'


def test_analyze_short_form_of_a_speaker_name() -> None:
    info = analyze("What did Mel and her kids paint in July 2023?", ["Caroline", "Melanie"])
    assert info.speakers == ("Melanie",)
    assert info.words == ("kids", "paint")
    assert info.window is not None and info.window.start == date(2023, 7, 1)


def test_only_stop_words_give_no_expression() -> None:
    assert analyze("What did she do?").fts_expression() is None
    assert plain_expression("What did she do?") == '"what" OR "did" OR "she" OR "do"'
    assert plain_expression("?!") is None
