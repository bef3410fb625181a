"""The inspector's security rules over plain HTTP, on both backends: sessions from keys,
CSRF on every form, the tenant only from the session, no open redirect."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from sgam.access import revoke_key

from .conftest import Served, post_sign_in


@contextmanager
def signed_in(served: Served, tenant: str = "acme", scope: str = "admin") -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, timeout=30) as client:
        response = post_sign_in(client, served.keys[(tenant, scope)])
        assert response.status_code == 303 and response.headers["location"] == "/ui/"
        cookie = response.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
        yield client


def csrf_of(client: httpx.Client, path: str = "/ui/review") -> str:
    page = client.get(path).text
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found
    return found.group(1)


def test_pages_need_a_session_and_a_valid_key(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=30) as anonymous:
        response = anonymous.get("/ui/")
        assert response.status_code == 303 and response.headers["location"].startswith("/ui/sign-in")
        refused = post_sign_in(anonymous, "sgam_nope.x.y")
        assert refused.status_code == 401 and "sgam_session" not in refused.headers.get("set-cookie", "")
        assert "revoked API key" in refused.text
        away = post_sign_in(anonymous, served.keys[("acme", "read")], "//evil.example/")
        assert away.headers["location"] == "/ui/"  # never an open redirect


def test_forms_without_the_csrf_token_change_nothing(served: Served) -> None:
    served.memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "Mira lives in Oslo")
    with signed_in(served) as client:
        forged = client.post("/ui/erase", data={"kind": "episode", "target": "e1", "csrf": "guess"})
        assert forged.status_code == 422 and "stale or forged" in forged.text
        assert served.memory.episode("acme", "e1") is not None
        done = client.post("/ui/erase", data={"kind": "episode", "target": "e1", "csrf": csrf_of(client)})
        assert done.status_code == 200 and served.memory.episode("acme", "e1") is None


def test_the_tenant_comes_from_the_session_only(served: Served) -> None:
    served.memory.add_episode("globex", "g1", "2026-06-01T00:00:00Z", "globex secret <b>bold</b>")
    served.memory.add_episode("acme", "a1", "2026-06-01T00:00:00Z", "<script>alert(1)</script>")
    with signed_in(served, "acme") as client:
        assert client.get("/ui/episodes/g1").status_code == 404
        assert "globex secret" not in client.get("/ui/?q=secret").text
        page = client.get("/ui/episodes/a1").text
        assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        preview = client.get("/ui/erase?kind=episode&target=g1")
        assert preview.status_code == 404 and served.memory.episode("globex", "g1") is not None


def test_scopes_and_revocation_apply_to_sessions(served: Served) -> None:
    with signed_in(served, "acme", "read") as reader:
        assert reader.get("/ui/erase").status_code == 403
        denied = reader.post("/ui/review/1/confirm", data={"csrf": csrf_of(reader)})
        assert denied.status_code == 403
    with signed_in(served, "acme", "write") as writer:
        assert writer.get("/ui/").status_code == 200
        key = served.keys[("acme", "write")].removeprefix("sgam_")
        revoke_key(served.memory, ".".join(key.split(".")[:2]))
        after = writer.get("/ui/")
        assert after.status_code == 303 and after.headers["location"].startswith("/ui/sign-in")


def test_a_cross_site_sign_in_post_is_refused(served: Served) -> None:
    """Login CSRF: another site's form must not sign the browser in (with the attacker's
    key, say). Our form carries a token its cookie matches; the browser's Sec-Fetch-Site
    and Origin must name this site."""
    key = served.keys[("acme", "read")]
    with httpx.Client(base_url=served.url, timeout=30) as browser:
        no_token = browser.post("/ui/sign-in", data={"key": key, "next": "/ui/"})
        assert no_token.status_code == 422 and "stale or forged" in no_token.text
        assert "sgam_session" not in no_token.headers.get("set-cookie", "")

        form = browser.get("/ui/sign-in")
        token = re.search(r'name="csrf" value="([^"]+)"', form.text)
        assert token
        data = {"key": key, "next": "/ui/", "csrf": token.group(1)}
        for forged in ({"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
                       {"Origin": "https://evil.example"}, {"Origin": "null"}):
            refused = browser.post("/ui/sign-in", data=data, headers=forged)
            assert refused.status_code == 422, forged
            assert "sgam_session" not in refused.headers.get("set-cookie", "")
        with httpx.Client(base_url=served.url, timeout=30) as other_browser:  # the token is not its own
            stolen = other_browser.post("/ui/sign-in", data=data)
            assert stolen.status_code == 422
        assert browser.get("/ui/").status_code == 303  # still signed out

        same_site = {"Sec-Fetch-Site": "same-origin", "Origin": served.url}
        done = browser.post("/ui/sign-in", data=data, headers=same_site)
        assert done.status_code == 303 and browser.get("/ui/").status_code == 200

def _state(served: Served, tenant: str) -> tuple[object, ...]:
    memory = served.memory
    return (
        sorted(e.id for e in memory.episodes(tenant)),
        sorted((a.subject, a.attribute) for a in memory.query(tenant, all_times=True)),
        sorted((c.subject, c.granted) for c in memory.consents(tenant)),
    )


def _seed_neighbours(served: Served, tenant: str) -> None:
    """Subjects and episodes whose names differ only in surrounding spaces."""
    memory = served.memory
    for episode in ("e1", " e1", "e2"):
        memory.add_episode(tenant, episode, "2026-06-01T00:00:00Z", "Zed likes tea")
    for subject, source in (("zed", "e2"), (" zed", "e2"), ("zed ", "e1"), ("ann", " e1")):
        memory.write(tenant, subject, "drink", "tea", "2026-06-01T00:00:00Z", source)


def test_erase_and_consent_forms_pass_the_name_exactly_as_typed(served: Served) -> None:
    """A form's effect is the library's for the same text: acme through the inspector,
    globex through ``Memory`` directly, the same names."""
    for tenant in ("acme", "globex"):
        _seed_neighbours(served, tenant)
    with signed_in(served, "acme") as client:
        preview = client.get("/ui/erase", params={"kind": "subject", "target": " zed"})
        hidden = re.search(r'name="target" value="([^"]*)"', preview.text.split('method="post"')[1])
        assert hidden and hidden.group(1) == "zed"  # the subject's id: the name as erasure normalises it
        token = csrf_of(client, "/ui/erase")
        assert client.post("/ui/erase", data={"kind": "subject", "target": hidden.group(1),
                                              "csrf": token}).status_code == 200
        assert client.post("/ui/erase", data={"kind": "episode", "target": " e1", "csrf": token}).status_code == 200
        consented = client.post("/ui/consent", data={"subject": "zed ", "decision": "revoke", "csrf": token})
        assert consented.status_code == 303
    served.memory.forget_subject("globex", " zed")
    served.memory.forget_episode("globex", " e1")
    served.memory.consent("globex", "zed ", False)
    assert _state(served, "acme") == _state(served, "globex")
    assert served.memory.get("acme", " zed", "drink") is None and served.memory.episode("acme", " e1") is None
    assert served.memory.consented("acme", "zed ") is False


def test_the_erase_preview_names_the_subject_as_the_erasure_does(served: Served) -> None:
    """``Atlas``, as every page spells it, previews what "Erase now" then erases."""
    memory = served.memory
    memory.add_episode("acme", "a1", "2026-06-01T00:00:00Z", "Atlas meets in Oslo.")
    memory.write("acme", "Atlas", "city", "Oslo", "2026-06-01T00:00:00Z", "a1")
    with signed_in(served, "acme") as client:
        preview = client.get("/ui/erase", params={"kind": "subject", "target": "Atlas"})
        assert 'id="count-operations">1 recorded operation</li>' in preview.text  # each count in its number
        assert 'id="count-episodes">0 episodes</li>' in preview.text
        assert 'id="count-keys">1 key whose timeline changes</li>' in preview.text
        assert "atlas.city" in preview.text and '"Oslo" [2026-06-01 → open)' in preview.text
        hidden = re.search(r'name="target" value="([^"]*)"', preview.text.split('method="post"')[1])
        assert hidden and hidden.group(1) == "atlas"
        assert memory.get("acme", "atlas", "city") is not None  # a preview erases nothing
        done = client.post("/ui/erase", data={"kind": "subject", "target": hidden.group(1),
                                              "csrf": csrf_of(client, "/ui/erase")})
        assert done.status_code == 200 and memory.get("acme", "atlas", "city") is None
        memory.write("acme", "Mira", "city", "Oslo", "2026-06-01T00:00:00Z", "a1")
        memory.alias("acme", "MJ", "Mira")
        by_alias = client.get("/ui/erase", params={"kind": "subject", "target": "MJ"})
        assert '<code class="wrap">mj</code> (a name of <code class="wrap">mira</code>) would remove' in by_alias.text
