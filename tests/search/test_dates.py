"""The time a question names, read as a window of episode time."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from sgam._core.time import from_micros, to_micros
from sgam.search.dates import named_window

NOW = to_micros(datetime(2024, 3, 15, 10, 30, tzinfo=UTC))


def _days(question: str) -> tuple[date | None, date | None]:
    window = named_window(question, NOW)
    assert window is not None, question
    return (None if window.since is None else from_micros(window.since).date(),
            None if window.until is None else from_micros(window.until).date())


@pytest.mark.parametrize(("question", "since", "until"), [
    ("What dish did Nate make on 9 November, 2022?", date(2022, 11, 9), date(2022, 11, 16)),
    ("Which team did John sign with on May 21, 2023?", date(2023, 5, 21), date(2023, 5, 28)),
    ("What book did Tim finish on 8th December 2023?", date(2023, 12, 8), date(2023, 12, 15)),
    ("Where was the picture shared on December 1,2023 taken?", date(2023, 12, 1), date(2023, 12, 8)),
    ("What did Joanna accomplish in January 2022?", date(2022, 1, 1), date(2022, 2, 7)),
    ("What state did Joanna visit in summer 2021?", date(2021, 6, 1), date(2021, 9, 7)),
    ("When did John get an ankle injury in 2023?", date(2023, 1, 1), date(2024, 1, 7)),
    ("Where was John between August 11 and August 15 2023?", date(2023, 8, 11), date(2023, 8, 22)),
    ("Where was Tim in the week before 16 November 2023?", date(2023, 11, 2), date(2023, 11, 16)),
    ("What did Ann cook yesterday?", date(2024, 3, 14), date(2024, 3, 21)),
    ("Where did Ann travel last year?", date(2023, 1, 1), date(2024, 1, 7)),
    ("What did Ann read this month?", date(2024, 3, 1), date(2024, 3, 22)),
    ("What did Ann buy two weeks ago?", date(2024, 2, 27), date(2024, 3, 10)),
])
def test_named_times_become_windows_that_include_the_days_after(question: str, since: date, until: date) -> None:
    assert _days(question) == (since, until)


def test_a_month_without_a_year_matches_that_month_of_any_year() -> None:
    window = named_window("When did Melanie go camping in July?", NOW)
    assert window is not None and window.months == frozenset({7}) and window.words == frozenset({"july"})
    assert window.holds(to_micros(datetime(2019, 7, 30, tzinfo=UTC)))
    assert not window.holds(to_micros(datetime(2019, 8, 1, tzinfo=UTC)))


def test_questions_without_a_time_and_verbs_that_look_like_months() -> None:
    assert named_window("What may Caroline pursue as a career?", NOW) is None
    assert named_window("Where does Mira live?", NOW) is None
    assert named_window("Who ran the marathon in march?", NOW) is not None  # a month after "in" is read as one
    invalid_day = named_window("What happened on 31 February, 2023?", NOW)  # read as the month
    assert invalid_day is not None and invalid_day.since == to_micros(datetime(2023, 2, 1, tzinfo=UTC))


def test_a_window_holds_its_ends_and_names_its_words() -> None:
    window = named_window("What did Nate make on 9 November, 2022?", NOW)
    assert window is not None and window.since is not None and window.until is not None
    assert window.holds(window.since) and window.holds(window.until) and not window.holds(window.until + 1)
    assert window.words == frozenset({"9", "november", "2022"})
