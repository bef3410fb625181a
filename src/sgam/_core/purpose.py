"""Purpose and consent: which timeline a read or write uses, and whether it may.

An assertion scoped to a purpose lives on its own timeline. The ledger keys a timeline by
(tenant, subject, attribute); a purpose timeline stores its attribute as
``attribute + U+001F + purpose``. Names cannot hold control characters, so the form is
unambiguous, and every index, constraint and lock that guards one key guards one
timeline without a change to the ledger's SQL. A member of a set (an attribute of
cardinality ``many``) is a timeline too: its ledger attribute is the timeline's followed
by U+001E and the member's canonical JSON (which escapes every control character), so the
members of one set are the keys starting with one prefix, an index range. Only this
module builds or splits these forms.

Consent is per subject, for every purpose (``purpose`` '') or for one. The latest
statement that covers a use decides it: a read or write for purpose P looks at the
newer of the subject's every-purpose and P statements; one without purpose at the
every-purpose statement only. No statement means granted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .errors import DeniedError
from .values import check_name

SEPARATOR = "\x1f"
MEMBER = "\x1e"
EVERY_PURPOSE = ""


def check_purpose(value: object, field: str = "purpose") -> str | None:
    """None (the general timeline) or a non-empty name."""
    return None if value is None else check_name(value, field)


def ledger_attribute(attribute: str, purpose: str | None) -> str:
    return attribute if purpose is None else f"{attribute}{SEPARATOR}{purpose}"


def member_attribute(attribute: str, purpose: str | None, member: str) -> str:
    """The ledger attribute of one member (its canonical JSON text) of a set's timeline."""
    return f"{ledger_attribute(attribute, purpose)}{MEMBER}{member}"


def members_prefix(attribute: str, purpose: str | None) -> str:
    """What the ledger attribute of every member of the set's timeline starts with."""
    return f"{ledger_attribute(attribute, purpose)}{MEMBER}"


def split_attribute(stored: str) -> tuple[str, str | None]:
    """(attribute, purpose) of a ledger attribute; purpose None on the general timeline."""
    attribute, separator, purpose = stored.partition(MEMBER)[0].partition(SEPARATOR)
    return (attribute, purpose) if separator else (attribute, None)


@dataclass(frozen=True, slots=True)
class ConsentRow:
    """The latest consent statement of a subject for one purpose ('' = every purpose)."""

    subject: str
    purpose: str
    granted: bool
    changed_at: int
    seq: int


def consent_uses(purpose: str | None) -> tuple[str, ...]:
    """The statements that can decide a use for ``purpose``: every purpose's, and the
    purpose's own (a ``ConsentBook`` for that use needs no other subject)."""
    return (EVERY_PURPOSE,) if purpose is None else (EVERY_PURPOSE, purpose)


def allowed(rows: Iterable[ConsentRow], purpose: str | None) -> bool:
    """Whether a use for ``purpose`` (None: without purpose) is consented, given the
    subject's statements."""
    covering = [r for r in rows if r.purpose == EVERY_PURPOSE or (purpose is not None and r.purpose == purpose)]
    return max(covering, key=lambda r: r.seq).granted if covering else True


def outlasting_erasure(rows: Iterable[ConsentRow]) -> list[ConsentRow]:
    """The statements of one subject that erasing it keeps: those that decide some use
    otherwise than having no statement would. A revocation for every purpose stays, with
    the later purpose grants that open an exception in it; without one, the purpose
    revocations newer than the every-purpose grant stay. The rest decide nothing (a
    grant is what no statement means; an older purpose statement is overruled by the
    every-purpose one, and every later statement will be newer still), so they go with
    the subject's data. Every use is then decided exactly as before the erasure."""
    statements = list(rows)
    general = max((r for r in statements if r.purpose == EVERY_PURPOSE), key=lambda r: r.seq, default=None)
    kept = [general] if general is not None and not general.granted else []
    unstated = True if general is None else general.granted
    kept += [r for r in statements if r.purpose != EVERY_PURPOSE and r.granted != unstated
             and (general is None or r.seq > general.seq)]
    return kept


class ConsentBook:
    """The tenant's consent statements for subjects that have any, looked up in memory
    (a read filters many subjects at once)."""

    def __init__(self, rows: Iterable[ConsentRow]) -> None:
        self._by_subject: dict[str, list[ConsentRow]] = {}
        for row in rows:
            self._by_subject.setdefault(row.subject, []).append(row)

    def allows(self, subject: str, purpose: str | None) -> bool:
        rows = self._by_subject.get(subject)
        return True if rows is None else allowed(rows, purpose)

    def revoked_subjects(self, purpose: str | None) -> set[str]:
        return {s for s, rows in self._by_subject.items() if not allowed(rows, purpose)}


def refuse(subject: str, purpose: str | None, field: str = "subject") -> DeniedError:
    scope = "" if purpose is None else f" for purpose {purpose!r}"
    return DeniedError(f"{field}: consent for {subject!r} is revoked{scope}", field=field, value=subject)
