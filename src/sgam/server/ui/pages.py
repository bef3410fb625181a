"""The inspector's pages under ``/ui``: server-rendered HTML over the same keys as the API.

Sign-in takes an API key and opens a session; read scope looks, write scope confirms and
rejects held candidates, admin scope confirms alias proposals (a merge) and erases (after
a preview). The tenant comes from the
session's key only. Everything stored is untrusted data: templates escape all of it.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from ..._core.errors import NotFoundError, SgamError, ValidationError
from ..._core.model import Assertion, SubjectName, WriteResult
from ..._core.time import parse_timestamp, utc_now
from ..._core.values import normalise_subject
from ...access import AuthenticationError, Principal, Scope, authenticate, principal_of
from ...boundary import http_status
from ...memory.asynchronous import AsyncMemory
from ...memory.facade import Memory
from ..limits import TooManySessions
from .sessions import COOKIE, Session, Sessions
from .timeline import draw, duration_text, short_time

TEMPLATES = Jinja2Templates(directory=str(Path(__file__).parent / "templates"))
TEMPLATES.env.filters["short"] = short_time
TEMPLATES.env.filters["duration"] = duration_text


def pretty_json(value: Any) -> str:
    """JSON data as people read it: indented, non-ASCII letters as they are (the
    template escapes the text like any other)."""
    return json.dumps(value, ensure_ascii=False, indent=2)


TEMPLATES.env.filters["pretty"] = pretty_json


def key_url(subject: str, attribute: str) -> str:
    """A key's page: by path, or by query when a name holds a '/' (a path cannot carry it)."""
    if "/" in subject or "/" in attribute:
        return "/ui/key?" + urlencode({"subject": subject, "attribute": attribute})
    return f"/ui/keys/{quote(subject, safe='')}/{quote(attribute, safe='')}"


def subject_url(subject: str, at: str = "", known_at: str = "") -> str:
    """A subject's page: by path, or by query when the id holds a '/'; read at ``at`` as
    believed at ``known_at`` when given, so following a relation keeps the instant."""
    instant = {name: value for name, value in (("at", at), ("known_at", known_at)) if value}
    if "/" in subject:
        return "/ui/subject?" + urlencode({"subject": subject, **instant})
    return f"/ui/subjects/{quote(subject, safe='')}" + (f"?{urlencode(instant)}" if instant else "")


TEMPLATES.env.globals["key_url"] = key_url
TEMPLATES.env.globals["subject_url"] = subject_url
OVERVIEW_ROWS = 10_000
OVERVIEW_PAGE_ROWS = 150
"""Versions read for one page of the overview: a page lists the keys they belong to."""
RECENT_EPISODES = 20

router = APIRouter(prefix="/ui", include_in_schema=False)


class SignInRequired(Exception):
    """No live session: the browser goes to the sign-in page."""


def _memory(request: Request) -> AsyncMemory:
    memory: AsyncMemory = request.app.state.memory
    return memory


def _sessions(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.inspector_sessions
    return sessions


async def _caller(request: Request, needed: Scope = "read") -> tuple[Session, Principal]:
    session = _sessions(request).get(request.cookies.get(COOKIE))
    if session is None:
        raise SignInRequired
    principal = await _memory(request).call(principal_of, session.key_id)
    if principal is None:  # the key was revoked: its sessions end with it
        _sessions(request).close(session.id)
        raise SignInRequired
    principal.require(needed)
    return session, principal


def _page(request: Request, template: str, session: Session | None, principal: Principal | None,
          status: int = 200, **context: Any) -> HTMLResponse:
    return TEMPLATES.TemplateResponse(
        request, template, {"session": session, "principal": principal, **context}, status_code=status,
        headers={"Content-Security-Policy": "default-src 'self'; style-src 'self'; img-src 'self' data:; "
                 "form-action 'self'; frame-ancestors 'none'", "X-Content-Type-Options": "nosniff",
                 "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})


async def _guarded(request: Request, needed: Scope,
                   render: Callable[[Session, Principal], Awaitable[Response]]) -> Response:
    """Run a page for a signed-in caller of ``needed`` scope; sgam errors become an error page."""
    try:
        session, principal = await _caller(request, needed)
    except SignInRequired:
        return RedirectResponse(f"/ui/sign-in?next={quote(str(request.url.path))}", status_code=303)
    except SgamError as exc:
        return _page(request, "error.html", None, None, http_status(exc), error=exc)
    try:
        return await render(session, principal)
    except SgamError as exc:
        return _page(request, "error.html", session, principal, http_status(exc), error=exc)


def _checked_csrf(session: Session, token: str) -> None:
    if not session.csrf_ok(token):
        raise ValidationError("csrf", "<hidden>", "the form is stale or forged: reload the page and try again")


def _moment(value: str | None, field: str) -> datetime | None:
    return None if not value else parse_timestamp(value, field)


# sign-in --------------------------------------------------------------------------------

SIGN_IN_COOKIE = "sgam_sign_in"
_SIGN_IN_TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")


def _sign_in_page(request: Request, next: str, status: int = 200, error: SgamError | None = None) -> Response:
    """The sign-in form with a CSRF token, also set as a cookie only this page's own posts
    carry: there is no session yet to hold the token. The browser's token is kept while
    it lasts, so a refused (forged) post does not invalidate the form it has open."""
    kept = request.cookies.get(SIGN_IN_COOKIE, "")
    token = kept if _SIGN_IN_TOKEN.fullmatch(kept) else secrets.token_urlsafe(32)
    response = _page(request, "sign_in.html", None, None, status, next=_local(next), error=error, csrf=token)
    response.set_cookie(SIGN_IN_COOKIE, token, httponly=True, samesite="strict", path="/ui/sign-in",
                        secure=request.url.scheme == "https", max_age=3600)
    return response


def _sign_in_forged(request: Request, csrf: str) -> bool:
    """A sign-in post that did not come from our own form: the token is not the one the
    form was served with, or the browser says the post came from another site."""
    expected = request.cookies.get(SIGN_IN_COOKIE, "")
    if not expected or not hmac.compare_digest(csrf.encode(), expected.encode()):
        return True
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site not in ("same-origin", "none")
    origin = request.headers.get("origin")
    return origin is not None and urlsplit(origin).netloc != request.headers.get("host")


@router.get("/sign-in", response_class=HTMLResponse)
async def sign_in_form(request: Request, next: str = "/ui/") -> Response:
    return _sign_in_page(request, next)


@router.post("/sign-in")
async def sign_in(request: Request, key: str = Form(max_length=600), next: str = Form("/ui/"),
                  csrf: str = Form("", max_length=100)) -> Response:
    if _sign_in_forged(request, csrf):
        forged = ValidationError("csrf", "<hidden>", "the form is stale or forged: reload the page and try again")
        return _sign_in_page(request, next, 422, forged)
    try:
        principal = await _memory(request).call(authenticate, key.strip())
    except AuthenticationError as exc:
        return _sign_in_page(request, next, 401, exc)
    try:
        session = _sessions(request).open(principal.key_id, principal.tenant)
    except TooManySessions as exc:
        return _sign_in_page(request, next, 503, exc)
    response = RedirectResponse(_local(next), status_code=303)
    response.set_cookie(COOKIE, session.id, httponly=True, samesite="strict", path="/ui",
                        secure=request.url.scheme == "https", max_age=8 * 3600)
    return response


@router.post("/sign-out")
async def sign_out(request: Request, csrf: str = Form("")) -> Response:
    session = _sessions(request).get(request.cookies.get(COOKIE))
    if session is not None and session.csrf_ok(csrf):
        _sessions(request).close(session.id)
    response = RedirectResponse("/ui/sign-in", status_code=303)
    response.delete_cookie(COOKIE, path="/ui")
    return response


def _local(target: str) -> str:
    """Only paths of the inspector itself: never an open redirect."""
    return target if target.startswith("/ui/") and not target.startswith("//") and "\\" not in target else "/ui/"


# overview -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SubjectRow:
    """One subject of an overview page: its id, the name people read, and its keys with
    how many versions each has."""

    id: str
    display: str
    keys: list[tuple[str, int]]


def _overview_page(memory: Memory, tenant: str, subject: str, attribute: str,
                   after: str) -> tuple[list[SubjectRow], str | None]:
    """One page of the tenant's keys, grouped by subject, and the cursor of the next. A
    key cut by the page's edge is counted whole (one more read of that key), so every
    count is its key's, wherever the page ends."""
    page = memory.query(tenant, subject=subject or None, attribute=attribute or None, all_times=True,
                        limit=OVERVIEW_PAGE_ROWS, cursor=after or None)
    keys = Counter((a.subject, a.attribute) for a in page)
    edges = [key for key, cut in ((next(iter(keys), None), bool(after)),
                                  (next(reversed(keys), None), page.next_cursor is not None)) if key and cut]
    for key_subject, key_attribute in dict.fromkeys(edges):
        keys[(key_subject, key_attribute)] = len(memory.query(
            tenant, subject=key_subject, attribute=key_attribute, all_times=True, limit=OVERVIEW_ROWS))
    labels = memory.display_names(tenant, list(dict.fromkeys(key_subject for key_subject, _ in keys)))
    found: dict[str, SubjectRow] = {}
    for (key_subject, key_attribute), count in keys.items():
        found.setdefault(key_subject, SubjectRow(key_subject, labels[key_subject], [])).keys.append(
            (key_attribute, count))
    return list(found.values()), page.next_cursor


def _overview(memory: Memory, tenant: str, question: str | None, subject: str, attribute: str,
              after: str) -> dict[str, Any]:
    subjects, following = _overview_page(memory, tenant, subject, attribute, after)
    return {
        "subjects": subjects, "next_page": following, "paged": bool(after),
        "subject_filter": subject, "attribute_filter": attribute,
        "episodes": memory.episodes(tenant, limit=RECENT_EPISODES, newest_first=True),
        "held": memory.held(tenant, limit=50),
        "question": question or "",
        "hits": memory.search(tenant, question, limit=10) if question else [],
    }


@router.get("/", response_class=HTMLResponse)
async def overview(request: Request, q: str | None = None,
                   subject: str = Query("", max_length=1000), attribute: str = Query("", max_length=1000),
                   after: str = Query("", max_length=4000)) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_overview, principal.tenant, q, subject.strip(), attribute.strip(),
                                           after)
        return _page(request, "overview.html", session, principal, **data)

    return await _guarded(request, "read", render)


# a key's timeline ----------------------------------------------------------------------

def _key(memory: Memory, tenant: str, subject: str, attribute: str, at: str | None,
         known_at: str | None) -> dict[str, Any]:
    versions = memory.versions(tenant, subject, attribute)
    now = memory.clock()
    at_moment, known_moment = _moment(at, "at"), _moment(known_at, "known_at")
    def one(found: Assertion | list[Assertion] | None) -> Assertion | None:
        return None if isinstance(found, list) else found  # a set's members are drawn on the timeline

    declared = {a.attribute: a for a in memory.schema(tenant)[0]}
    renamed_to, seen = attribute, {attribute}
    while (step := declared.get(renamed_to)) is not None and step.renamed_to and step.renamed_to not in seen:
        renamed_to = step.renamed_to
        seen.add(renamed_to)
    meant = normalise_subject(subject)
    set_aside = [q for q in memory.quarantined(tenant, attribute) if q.subject == meant] if versions else []
    return {
        "renamed_to": renamed_to if renamed_to != attribute else None, "set_aside": set_aside,
        "subject": subject, "attribute": attribute, "versions": versions, "timeline": draw(versions, now),
        "narrow": draw(versions, now, narrow=True),
        "at": at or "", "known_at": known_at or "",
        "held_at": one(memory.lookup(tenant, subject, attribute, at=at_moment)) if at_moment and versions else None,
        "believed_at": (one(memory.lookup(tenant, subject, attribute, at=at_moment or now, known_at=known_moment))
                        if known_moment and versions else None),
        "asked": bool(at_moment or known_moment), "now": now,
    }


@router.get("/key", response_class=HTMLResponse)
@router.get("/keys/{subject}/{attribute}", response_class=HTMLResponse)
async def key_page(request: Request, subject: str, attribute: str, at: str | None = None,
                   known_at: str | None = None) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_key, principal.tenant, subject, attribute, at, known_at)
        if not data["versions"]:  # never recorded, or erased: the page must not name it
            return _page(request, "error.html", session, principal, 404,
                         error=NotFoundError("no version of this key in this tenant (never recorded, or erased)"))
        return _page(request, "key.html", session, principal, **data)

    return await _guarded(request, "read", render)


# an episode ------------------------------------------------------------------------------

def _episode(memory: Memory, tenant: str, episode_id: str, quote_text: str | None) -> dict[str, Any] | None:
    episode = memory.episode(tenant, episode_id)
    if episode is None:
        return None
    extractions = memory.extractions(tenant, episode=episode_id, limit=50)
    quotes = {quote_text} if quote_text else set()
    for extraction in extractions:
        for decision in extraction.decisions:
            evidence = decision.candidate.get("evidence")
            if isinstance(evidence, str) and evidence and evidence in episode.text:
                quotes.add(evidence)
    written = memory.query(tenant, all_times=True, limit=OVERVIEW_ROWS)
    return {"episode": episode, "extractions": extractions, "parts": _highlighted(episode.text, quotes),
            "facts": [a for a in written if a.source == episode_id],
            "derived": memory.derived_episodes(tenant, episode_id)}


def _highlighted(text: str, quotes: set[str]) -> list[tuple[str, bool]]:
    """The text cut into (piece, is_evidence) so the template can mark quotes safely."""
    marks = [False] * len(text)
    for quoted in quotes:
        start = text.find(quoted)
        while start >= 0 and quoted:
            for i in range(start, start + len(quoted)):
                marks[i] = True
            start = text.find(quoted, start + len(quoted))
    parts: list[tuple[str, bool]] = []
    for char, marked in zip(text, marks, strict=True):
        if parts and parts[-1][1] == marked:
            parts[-1] = (parts[-1][0] + char, marked)
        else:
            parts.append((char, marked))
    return parts


@router.get("/episodes/{episode_id:path}", response_class=HTMLResponse)
async def episode_page(request: Request, episode_id: str, quote: str | None = None) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_episode, principal.tenant, episode_id, quote)
        if data is None:
            return _page(request, "error.html", session, principal, 404,
                         error=SgamError(f"no episode {episode_id!r} in this tenant"))
        return _page(request, "episode.html", session, principal, **data)

    return await _guarded(request, "read", render)


# review -----------------------------------------------------------------------------------

def _review(memory: Memory, tenant: str) -> dict[str, Any]:
    """Held candidates, and for each one held because its subject's name was ambiguous
    the subjects its extraction listed (a person chooses; the name as written stays a
    choice: a subject of its own)."""
    held = memory.held(tenant, limit=200)
    choices: dict[int, list[str]] = {}
    for episode in dict.fromkeys(h.episode_id for h in held if h.hold == "pending"):
        for extraction in memory.extractions(tenant, episode=episode, limit=50):
            for decision in extraction.decisions:
                if decision.held_id is not None and decision.candidates:
                    choices.setdefault(decision.held_id, list(decision.candidates))
    return {"held": held, "choices": choices}


@router.get("/review", response_class=HTMLResponse)
async def review(request: Request) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        data = await _memory(request).call(_review, principal.tenant)
        flash = _sessions(request).take_flash(session.id)
        return _page(request, "review.html", session, principal, flash=flash, **data)

    return await _guarded(request, "read", render)


def _confirmed(written: WriteResult | SubjectName) -> str:
    if isinstance(written, SubjectName):
        return f"{written.name} is now another name of {written.subject}."
    fact = written.assertion
    return (f"{fact.subject}.{fact.attribute} = {json.dumps(fact.value, ensure_ascii=False)} "
            f"is written ({written.effect.value})." if fact else f"{written.effect.value}.")


@router.post("/review/{held_id}/{decision}")
async def decide(request: Request, held_id: int, decision: str, csrf: str = Form(""),
                 subject: str = Form("", max_length=1000)) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        _checked_csrf(session, csrf)
        if decision == "confirm":
            written = await _memory(request).confirm(principal.tenant, held_id, subject=subject or None,
                                                     may_alias=principal.allows("admin"))
            _sessions(request).flash(session.id, f"Candidate {held_id} confirmed: {_confirmed(written)}")
        elif decision == "reject":
            rejected = await _memory(request).reject(principal.tenant, held_id)
            _sessions(request).flash(
                session.id, f"Candidate {held_id} rejected: {rejected.subject}.{rejected.attribute} is not written.")
        else:
            raise ValidationError("decision", decision, "must be confirm or reject")
        return RedirectResponse("/ui/review", status_code=303)

    return await _guarded(request, "write", render)


# erasure ---------------------------------------------------------------------------------

def _target(kind: str, target: str) -> tuple[str, str]:
    """The target exactly as typed: erasure reaches the subject or episode named, never a
    neighbour whose name differs in surrounding spaces."""
    if kind not in ("subject", "episode"):
        raise ValidationError("kind", kind, "must be subject or episode")
    if not target.strip():
        raise ValidationError("target", target, "name the subject or episode to erase")
    return kind, target


def _preview(memory: Memory, tenant: str, kind: str, target: str) -> Any:
    if kind == "subject":
        return memory.preview_forget(tenant, subject=target)
    return memory.preview_forget(tenant, episode=target)


@router.get("/erase", response_class=HTMLResponse)
async def erase_preview(request: Request, kind: str = "subject", target: str = "") -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        if not target:
            return _page(request, "erase.html", session, principal, preview=None, kind=kind, target="")
        checked_kind, checked = _target(kind, target)
        preview = await _memory(request).call(_preview, principal.tenant, checked_kind, checked)
        return _page(request, "erase.html", session, principal, preview=preview, kind=checked_kind,
                     target=preview.target)

    return await _guarded(request, "admin", render)


@router.post("/erase")
async def erase(request: Request, kind: str = Form(""), target: str = Form(""), csrf: str = Form("")) -> Response:
    async def render(session: Session, principal: Principal) -> Response:
        _checked_csrf(session, csrf)
        checked_kind, checked = _target(kind, target)
        memory = _memory(request)
        if checked_kind == "subject":
            result = await memory.forget_subject(principal.tenant, checked)
        else:
            result = await memory.forget_episode(principal.tenant, checked)
        return _page(request, "erased.html", session, principal, kind=checked_kind, target=checked, result=result,
                     when=utc_now())

    return await _guarded(request, "admin", render)
