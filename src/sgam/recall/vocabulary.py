"""The words a question uses to ask about an attribute.

"Where does Mira live?" asks about ``mira.city`` without naming ``city``. A key's
vocabulary is its own words, the words of the description its tenant declared for the
attribute, and, for common attribute names, the verbs and nouns people ask them with
(``ASKED_WITH``); a set's (an attribute of many values) also has the words that ask for
a group's members (``MEMBERSHIP``: "who is in team Atlas?", "who belongs to Atlas?"), so
such a question reaches the set's exact state with no description declared. The
attribute's own words match by shared prefix, the others by light stem, so "lives" and
"living" find "live" but "car" does not find "career".
A sensitive attribute is never reached this way: it needs its own name in the question."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ..search import keywords
from ..search.signals import light_stem

_TOKEN = re.compile(r"[^\W_]+")

# An attribute word (a part of the attribute's name) -> words a question asks it with.
_PLACE = ("live", "lives", "living", "reside", "resides", "based", "home", "moved", "located")
_WORK = ("work", "works", "working", "job", "employed", "employer", "company", "career", "profession",
         "occupation", "role")
_BIRTH = ("born", "birthday", "birth", "birthdate")
ASKED_WITH: Mapping[str, tuple[str, ...]] = {
    "city": _PLACE, "town": _PLACE, "address": _PLACE, "home": _PLACE, "residence": _PLACE,
    "location": _PLACE, "country": (*_PLACE, "nationality"), "neighbourhood": _PLACE, "neighborhood": _PLACE,
    "employer": _WORK, "company": _WORK, "job": _WORK, "occupation": _WORK, "profession": _WORK,
    "role": _WORK, "title": _WORK, "position": _WORK, "workplace": _WORK,
    "birthday": _BIRTH, "dob": _BIRTH, "birthdate": _BIRTH, "born": _BIRTH,
    "age": ("old", "age", *_BIRTH),
    "salary": ("earn", "earns", "earning", "paid", "pay", "income", "wage"),
    "income": ("earn", "earns", "earning", "paid", "pay", "salary", "wage"),
    "email": ("contact", "reach", "mail"), "phone": ("contact", "reach", "ring", "mobile"),
    "spouse": ("married", "wife", "husband", "partner"), "partner": ("married", "wife", "husband", "spouse"),
    "language": ("speak", "speaks", "speaking", "languages"), "languages": ("speak", "speaks", "speaking"),
    "diet": ("eat", "eats", "food", "vegetarian", "vegan"),
    "allergies": ("allergic", "allergy"), "allergy": ("allergic", "allergies"),
    "pronouns": ("pronoun", "refer"), "nationality": ("citizen", "citizenship", "passport"),
    "school": ("study", "studies", "studying", "student", "university", "college"),
    "university": ("study", "studies", "studying", "student", "school", "college"),
}

# Words that ask for the members of a group: any set of a subject answers them.
MEMBERSHIP: tuple[str, ...] = (
    "member", "members", "membership", "belong", "belongs", "belonging", "part", "team", "teams", "group",
    "groups", "crew", "squad", "staff", "roster", "everyone", "everybody", "people", "list", "consist",
    "consists", "include", "includes", "including", "made", "makes", "works", "working", "joined", "joins",
)


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def covers(term: str, token: str) -> bool:
    """Stemming-agnostic word match: 'cities' covers 'city', 'moved' covers 'move'."""
    stem = min(len(term), max(3, len(token) - 2))
    return term == token or (len(term) >= 3 and len(token) >= 3 and term[:stem] == token[:stem])


def attribute_vocabulary(attribute: str, description: str | None = None, *, many: bool = False) -> frozenset[str]:
    """Light stems of the words a question may ask about the attribute with: those of its
    declared description, the ones common attribute names are asked with and, for a set
    (``many``), the ones asking for members. (Its own words are matched by ``covers``,
    more loosely.)"""
    words: set[str] = set(MEMBERSHIP) if many else set()
    for word in tokens(attribute):
        words.update(ASKED_WITH.get(word, ()))
    if description:
        words.update(keywords(description))
    return frozenset(light_stem(word) for word in words)


def names_any(terms: Iterable[str], words: Iterable[str]) -> bool:
    """Some question word covers one of ``words`` (an attribute's or a subject's own)."""
    words = list(words)
    return any(covers(term, word) for term in terms for word in words)


def asks_about(terms: Iterable[str], attribute: str, vocabulary: frozenset[str]) -> bool:
    """Some question word names the attribute or is one it is asked with."""
    terms = list(terms)
    return names_any(terms, tokens(attribute)) or any(light_stem(term) in vocabulary for term in terms)
