"""The time a question names, as a window of episode time.

"What did Nate make on 9 November, 2022?", "in January 2022", "the week before August 3,
2023", "between August 11 and August 15 2023", "in summer 2021", "last year", "two weeks
ago". Conversations mention an event on its day or in the days after, so a window runs
from the start of the named time to ``MENTION_LAG`` after its end. Relative phrases
("last year", "3 days ago", "yesterday") count back from the search's ``now``. A month
named without a year ("camping in July") matches that month of any year.

Plain functions over text, tested alone; the engine turns a window into a keyword search
restricted to it and a bonus for turns inside it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .._core.time import from_micros, to_micros

MENTION_LAG = timedelta(days=7)
BEFORE_SPAN = timedelta(days=14)  # "the week before X", "last weekend before X"

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH = r"(?P<{0}>" + "|".join(MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAY = r"(?P<{0}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{0}>(?:19|20)\d\d)"
# "9 November, 2022", "November 9, 2022", "December 1,2023", "8th December 2023".
_DATE = (rf"(?:{_DAY.format('d1')}\s+(?:of\s+)?{_MONTH.format('m1')},?\s*{_YEAR.format('y1')}"
         rf"|{_MONTH.format('m2')}\s+{_DAY.format('d2')},?\s*{_YEAR.format('y2')})")
_DAY_DATE = re.compile(rf"\b{_DATE}\b", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b{_MONTH.format('m')},?\s+{_YEAR.format('y')}\b", re.IGNORECASE)
_SEASON_YEAR = re.compile(rf"\b(?P<s>spring|summer|autumn|fall|winter)\s+(?:of\s+)?{_YEAR.format('y')}\b",
                          re.IGNORECASE)
_YEAR_ONLY = re.compile(rf"\b(?:in|during|of|since|by)\s+{_YEAR.format('y')}\b", re.IGNORECASE)
# A month without a year needs a preposition: "may" alone is usually the verb.
_MONTH_ALONE = re.compile(rf"\b(?:in|during|of|early|late|mid)\s+{_MONTH.format('m')}\b(?!,?\s*\d)", re.IGNORECASE)
_BEFORE = re.compile(r"\b(?:week|weekend|days?|sunday|monday|tuesday|wednesday|thursday|friday|saturday)"
                     r"\s+before\s*$", re.IGNORECASE)
_BETWEEN = re.compile(
    rf"\bbetween\s+{_MONTH.format('ma')}\s+{_DAY.format('da')}(?:,?\s*{_YEAR.format('ya')})?\s+and\s+"
    rf"(?:{_MONTH.format('mb')}\s+)?{_DAY.format('db')},?\s*{_YEAR.format('yb')}", re.IGNORECASE)
_AGO = re.compile(r"\b(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
                  r"(?P<unit>day|week|month|year)s?\s+ago\b", re.IGNORECASE)
_LAST = re.compile(r"\b(?P<which>last|this|past)\s+(?P<unit>week|weekend|month|year)\b", re.IGNORECASE)
_YESTERDAY = re.compile(r"\byesterday\b", re.IGNORECASE)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10}
_SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "fall": (9, 3), "winter": (12, 3)}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """Episode times (µs, inclusive) a question points at, or the months of any year it
    names; ``words`` are the question's words that only said when."""

    since: int | None = None
    until: int | None = None
    months: frozenset[int] = frozenset()
    words: frozenset[str] = frozenset()

    def holds(self, micros: int) -> bool:
        if self.months:
            return from_micros(micros).month in self.months
        return (self.since is None or micros >= self.since) and (self.until is None or micros <= self.until)


def named_window(question: str, now: int) -> TimeWindow | None:
    """The window of the first time expression found, most precise kinds first."""
    for find in (_between, _day, _month_year, _season_year, _year, _relative, _month_alone):
        window = find(question, from_micros(now))
        if window is not None:
            return window
    return None


def _month_number(name: str) -> int:
    name = name.lower().rstrip(".")
    return next(i for i, month in enumerate(MONTHS, start=1) if month.startswith(name[:3]))


def _words(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in re.findall(r"[^\W_]+", text))


def _window(start: datetime, end: datetime, matched: str) -> TimeWindow:
    """From ``start`` to ``end`` (exclusive) plus the days in which it gets mentioned."""
    return TimeWindow(to_micros(start), to_micros(end + MENTION_LAG) - 1, words=_words(matched))


def _date(year: str, month: str, day: str) -> datetime | None:
    try:
        return datetime(int(year), _month_number(month), int(day), tzinfo=UTC)
    except ValueError:
        return None


def _between(question: str, now: datetime) -> TimeWindow | None:
    match = _BETWEEN.search(question)
    if match is None:
        return None
    first = _date(match["ya"] or match["yb"], match["ma"], match["da"])
    last = _date(match["yb"], match["mb"] or match["ma"], match["db"])
    if first is None or last is None or last < first:
        return None
    return _window(first, last + timedelta(days=1), match.group())


def _day(question: str, now: datetime) -> TimeWindow | None:
    match = _DAY_DATE.search(question)
    if match is None:
        return None
    day = _date(match["y1"] or match["y2"], match["m1"] or match["m2"], match["d1"] or match["d2"])
    if day is None:
        return None
    before = _BEFORE.search(question[:match.start()])
    if before is not None:  # "the week before August 3, 2023": the span that ends there
        return TimeWindow(to_micros(day - BEFORE_SPAN), to_micros(day + timedelta(days=1)) - 1,
                          words=_words(before.group() + " " + match.group()))
    return _window(day, day + timedelta(days=1), match.group())


def _month_year(question: str, now: datetime) -> TimeWindow | None:
    match = _MONTH_YEAR.search(question)
    if match is None:
        return None
    start = datetime(int(match["y"]), _month_number(match["m"]), 1, tzinfo=UTC)
    return _window(start, _add_months(start, 1), match.group())


def _season_year(question: str, now: datetime) -> TimeWindow | None:
    match = _SEASON_YEAR.search(question)
    if match is None:
        return None
    first, length = _SEASONS[match["s"].lower()]
    start = datetime(int(match["y"]), first, 1, tzinfo=UTC)
    return _window(start, _add_months(start, length), match.group())


def _year(question: str, now: datetime) -> TimeWindow | None:
    match = _YEAR_ONLY.search(question)
    if match is None:
        return None
    start = datetime(int(match["y"]), 1, 1, tzinfo=UTC)
    return _window(start, _add_months(start, 12), match["y"])


def _relative(question: str, now: datetime) -> TimeWindow | None:
    """"yesterday", "last week/month/year", "this year", "two weeks ago", from ``now``."""
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if (match := _YESTERDAY.search(question)) is not None:
        return _window(today - timedelta(days=1), today, match.group())
    if (match := _AGO.search(question)) is not None:
        count = _NUMBERS.get(match["n"].lower()) or int(match["n"])
        days = _UNIT_DAYS[match["unit"].lower()]
        centre = today - timedelta(days=count * days)
        return _window(centre - timedelta(days=max(1, days // 2)), centre + timedelta(days=max(1, days // 2)),
                       match.group())
    if (match := _LAST.search(question)) is not None:
        which, unit = match["which"].lower(), match["unit"].lower()
        if unit == "year":
            start = today.replace(month=1, day=1)
            start = start if which == "this" else start.replace(year=start.year - 1)
            end = _add_months(start, 12) if which != "this" else today + timedelta(days=1)
        elif unit == "month":
            start = today.replace(day=1)
            start = start if which == "this" else _add_months(start, -1)
            end = _add_months(start, 1) if which != "this" else today + timedelta(days=1)
        else:
            start = today - timedelta(days=today.weekday() + (0 if which == "this" else 7))
            end = start + timedelta(days=7) if which != "this" else today + timedelta(days=1)
        return _window(start, end, match.group())
    return None


def _month_alone(question: str, now: datetime) -> TimeWindow | None:
    found = list(_MONTH_ALONE.finditer(question))
    if not found:
        return None
    return TimeWindow(months=frozenset(_month_number(m["m"]) for m in found),
                      words=frozenset(m["m"].lower() for m in found))


def _add_months(moment: datetime, count: int) -> datetime:
    index = moment.year * 12 + moment.month - 1 + count
    return moment.replace(year=index // 12, month=index % 12 + 1)
