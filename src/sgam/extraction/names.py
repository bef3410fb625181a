"""Which known subjects an episode names, and what a name in a model's update means.

The episode's runs of one to ``MAX_NAME_WORDS`` words, normalised as subject ids are,
are looked up among the tenant's recorded subject names (one index probe each, in
batches; never a scan of the tenant). Those are the known subjects the model is shown.

A name in an update is then resolved, never guessed:
- an id recorded for the tenant is that subject, however the model spelled it (the
  normalisation: ``MIRA JANSEN`` is ``mira jansen``);
- a name that several stored ids fold into (a collision the normalisation reported) is
  ambiguous;
- an unknown name that is part of known names the episode mentions (``mira`` beside
  ``Mira Jansen`` and ``Mira Kowalski``) is ambiguous: a person decides which subject it
  is, or that it is a new one. The model is never trusted to merge two subjects;
- any other name is a new subject.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._core.values import normalise_subject
from ..store import SubjectReads

MAX_NAME_WORDS = 4
MAX_NAME_PROBES = 512
"""Runs of words looked up per episode: a long episode is probed from its beginning."""
MAX_KNOWN_SHOWN = 100
_TOKEN = re.compile(r"\w[\w.-]*\w|\w")


def name_probes(text: str) -> list[str]:
    """Distinct normalised runs of one to ``MAX_NAME_WORDS`` consecutive words of ``text``."""
    words = [normalise_subject(match.group(0)) for match in _TOKEN.finditer(text)]
    seen: dict[str, None] = {}
    for start in range(len(words)):
        for size in range(1, MAX_NAME_WORDS + 1):
            if start + size > len(words):
                break
            seen.setdefault(" ".join(words[start:start + size]), None)
            if len(seen) >= MAX_NAME_PROBES:
                return list(seen)
    return list(seen)


@dataclass(frozen=True, slots=True)
class KnownSubjects:
    """The tenant's subjects the episode names: id → display name (first spelling)."""

    names: dict[str, str]

    def containing(self, name: str) -> list[str]:
        """Known ids of which ``name`` is a whole-word part (``mira`` of ``mira jansen``)."""
        wanted = name.split()
        found = []
        for subject in self.names:
            words = subject.split()
            if subject != name and any(words[i:i + len(wanted)] == wanted for i in range(len(words))):
                found.append(subject)
        return sorted(found)


def known_subjects(reader: SubjectReads, text: str) -> KnownSubjects:
    """The subjects the episode's words name, by their ids or by an alias: an alias shows
    as the subject it means, "also called" by it (a write naming the alias reaches it)."""
    probes = name_probes(text)
    found = reader.display_names(probes)
    aliases = reader.resolve_subjects(probes)
    if aliases:
        meant = reader.display_names(sorted(set(aliases.values())))
        for alias, subject in sorted(aliases.items()):
            spelled = found.pop(alias, alias)
            shown = found.get(subject) or meant.get(subject, subject)
            found[subject] = f"{shown}, also called {spelled}"
    return KnownSubjects(dict(sorted(found.items())[:MAX_KNOWN_SHOWN]))


@dataclass(frozen=True, slots=True)
class Resolution:
    """What a name means: ``subject`` when it is decided, else the ``candidates`` a person
    chooses from (the name itself stays a choice: a new subject)."""

    name: str
    subject: str | None
    candidates: tuple[str, ...] = ()
    why: str | None = None


def resolve(reader: SubjectReads, known: KnownSubjects, name: str) -> Resolution:
    """``name`` (already normalised) as the tenant's subjects stand in this unit of work."""
    stored = [spelling for _, spelling in reader.subject_collisions(name)]
    if len(stored) > 1:
        return Resolution(name, None, tuple(stored), f"stored ids {', '.join(map(repr, stored))} all fold into "
                                                     f"{name!r} (reported by the normalisation, not merged)")
    if name in known.names or reader.display_names([name]):
        return Resolution(name, name)
    containing = known.containing(name)
    if containing:
        listed = " or ".join(repr(s) for s in containing)
        return Resolution(name, None, tuple(containing),
                          f"{name!r} is no known subject, and is part of {listed}, which the episode names")
    return Resolution(name, name)
