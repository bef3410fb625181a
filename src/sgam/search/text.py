"""Question text to search terms: words, lower-cased, common function words dropped.

Stemming is the index's job (FTS5 ``porter``, PostgreSQL ``english``), so terms stay words."""

from __future__ import annotations

import re

from .._core.errors import ValidationError
from .._core.values import check_unicode

MAX_TERMS = 64
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves s t don ll ve re d m
    """.split()
)


def keywords(text: str) -> list[str]:
    """Distinct content words in order of appearance (numbers kept, single letters not)."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        word = match.group()
        if word in STOPWORDS or (len(word) == 1 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
        if len(seen) == MAX_TERMS:
            break
    return list(seen)


MAX_QUESTION_CHARS = 4_000


def check_question(question: object, field: str = "question") -> str:
    """A question is non-empty text of bounded size: enormous ones are refused, not cut,
    so the caller learns that part of the question would have been ignored. It is valid
    Unicode without NUL like every text sgam takes: answers quote it back."""
    if not isinstance(question, str):
        raise ValidationError(field, question, "must be a string")
    if not question.strip():
        raise ValidationError(field, question, "must not be empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise ValidationError(field, f"<{len(question)} characters>",
                              f"at most {MAX_QUESTION_CHARS} characters")
    return check_unicode(question, field)
