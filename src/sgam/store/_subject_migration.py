"""What the subject-normalisation migration does to stored subject ids, decided once for
both backends (each runs the renames with its own SQL).

Every stored subject id is renamed to its normalised form (``normalise_subject``), the
old spelling kept as the id's display name. Two stored ids that fold into one (``Mira``
and ``mira``) are not merged: merging would pick, silently, which value holds where two
keys disagree. They are left exactly as they were and listed in ``subject_collisions``
for the operator (docs/lifecycle.md says what to do). A LangGraph store item's subject is
its namespace as JSON (``["users","Mira"]``), an exact key of that store, not a name of
anyone: it stays as it is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from .._core.values import normalise_subject

SUBJECT_TABLES = ("operations", "assertions", "consents", "held_candidates")
"""The tables whose ``subject`` column holds a subject id (key tables follow the ledger's)."""


@dataclass(slots=True)
class SubjectPlan:
    renames: list[tuple[str, str, str]] = field(default_factory=list)
    """(tenant, stored id, normalised id)"""
    collisions: list[tuple[str, str, str]] = field(default_factory=list)
    """(tenant, normalised id, stored id): left untouched, reported"""


def is_item_namespace(subject: str) -> bool:
    if not subject.startswith("["):
        return False
    try:
        labels = json.loads(subject)
    except ValueError:
        return False
    return isinstance(labels, list) and all(isinstance(label, str) for label in labels)


def plan_subjects(stored: Iterable[tuple[str, str]]) -> SubjectPlan:
    """Renames and collisions for the distinct (tenant, subject id) pairs ``stored``."""
    groups: dict[tuple[str, str], set[str]] = {}
    for tenant, subject in stored:
        if is_item_namespace(subject):
            continue
        normalised = normalise_subject(subject) or subject
        groups.setdefault((tenant, normalised), set()).add(subject)
    plan = SubjectPlan()
    for (tenant, normalised), spellings in sorted(groups.items()):
        if len(spellings) > 1:
            plan.collisions += [(tenant, normalised, spelling) for spelling in sorted(spellings)]
        elif (only := next(iter(spellings))) != normalised:
            plan.renames.append((tenant, only, normalised))
    return plan


def distinct_subjects_sql() -> str:
    return " UNION ".join(f"SELECT tenant, subject FROM {table}" for table in SUBJECT_TABLES)
