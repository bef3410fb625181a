"""The inspector's lifecycle and document pages over plain HTTP, on both backends:
retention classes with their next deadlines, consent per subject (a write key records it,
CSRF-checked), documents with revisions and diffs; the tenant only from the session."""

from __future__ import annotations

import html
import re

from sgam.documents import Provenance

from ..conftest import ManualClock
from .conftest import Served
from .test_inspector_http import csrf_of, signed_in


def test_retention_and_consent(served_at: Served, clock: ManualClock) -> None:
    memory = served_at.memory
    memory.retention("acme", "chat", "P7D")
    memory.add_episode("acme", "e1", "2026-06-30T09:00:00Z", "Mira said hi", retention="chat")
    memory.consent("acme", "omar", False)
    memory.consent("acme", "mira", False, purpose="ads")
    with signed_in(served_at, "acme", "read") as reader:
        page = reader.get("/ui/lifecycle")
        assert page.status_code == 200
        chat = re.search(r'<tr data-class="chat">(.*?)</tr>', page.text, re.S)
        assert chat and "7 days" in chat.group(1) and "P7D" not in chat.group(1) and "2026-07-08" in chat.group(1)
        assert "(built in)" in re.search(r'<tr data-class="default">(.*?)</tr>', page.text, re.S).group(1)
        assert re.search(r'id="deadlines".*2026-07-08', page.text, re.S)
        consents = re.search(r'<table id="consents">(.*?)</table>', page.text, re.S).group(1)
        assert "omar" in consents and "revoked for every purpose" in consents
        assert "revoked for purpose <code>ads</code>" in consents
        assert 'action="/ui/consent"' not in page.text  # a read key cannot record consent
        assert reader.post("/ui/consent", data={"subject": "omar", "decision": "grant",
                                                "csrf": csrf_of(reader, "/ui/lifecycle")}).status_code == 403
    with signed_in(served_at, "acme", "write") as writer:
        token = csrf_of(writer, "/ui/lifecycle")
        forged = writer.post("/ui/consent", data={"subject": "omar", "decision": "grant", "csrf": "guess"})
        assert forged.status_code == 422 and memory.consented("acme", "omar") is False
        bad = writer.post("/ui/consent", data={"subject": "omar", "decision": "maybe", "csrf": token})
        assert bad.status_code == 422
        done = writer.post("/ui/consent", data={"subject": "omar", "decision": "grant", "purpose": "",
                                                "csrf": token})
        assert done.status_code == 303 and memory.consented("acme", "omar") is True
        after = writer.get("/ui/lifecycle").text
        assert "granted for every purpose" in after
        flash = re.search(r'<p class="flash" role="status" id="flash">(.*?)</p>', after, re.S)
        assert flash and html.unescape(flash.group(1)) == "Consent for 'omar' granted for every purpose."
        assert 'id="flash"' not in writer.get("/ui/lifecycle").text  # shown once
        form = re.search(r'<form method="post" action="/ui/consent".*?</form>', after, re.S).group(0)
        assert "checked" not in form  # neither decision is chosen for the user
    clock.advance(8 * 24 * 3600)
    with signed_in(served_at, "acme", "read") as reader:
        chat = re.search(r'<tr data-class="chat">(.*?)</tr>', reader.get("/ui/lifecycle").text, re.S)
        assert chat and '<td data-label="episodes">0</td>' in chat.group(1)  # expired: the class holds nothing now
    with signed_in(served_at, "globex", "admin") as other:
        page = other.get("/ui/lifecycle").text
        assert "omar" not in page and 'data-class="chat"' not in page


def test_documents_revisions_and_diffs(served: Served) -> None:
    docs = served.memory.documents
    docs.create("acme", "/memories/mira.md", "Mira\nlives in Rome\n", by=Provenance("mira", "e7"))
    docs.str_replace("acme", "/memories/mira.md", "Rome", "Oslo <script>x</script>", by=Provenance("memory-tool"))
    docs.create("acme", "/memories/gone.md", "temporary")
    docs.delete("acme", "/memories/gone.md")
    docs.create("globex", "/memories/secret.md", "globex only")
    with signed_in(served, "acme", "read") as reader:
        listing = reader.get("/ui/documents").text
        assert "/memories/mira.md" in listing and "gone.md" not in listing and "secret.md" not in listing
        page = reader.get("/ui/documents/file", params={"path": "/memories/mira.md"})
        assert page.status_code == 200
        assert "<script>x" not in page.text and "Oslo &lt;script&gt;x&lt;/script&gt;" in page.text
        diff = re.search(r'<pre class="diff" id="diff">(.*?)</pre>', page.text, re.S).group(1)
        assert '<span class="del">-lives in Rome</span>' in diff and '<span class="add">+lives in Oslo' in diff
        revisions = re.search(r'<table id="revisions">(.*?)</table>', page.text, re.S).group(1)
        assert revisions.index("memory-tool") < revisions.index("mira")  # newest first
        assert 'href="/ui/episodes/e7"' in revisions
        same = reader.get("/ui/documents/file", params={"path": "/memories/mira.md", "old": 1, "new": 1})
        assert "No differences." in same.text
        assert reader.get("/ui/documents/file", params={"path": "/memories/mira.md", "old": 9}).status_code == 404
        deleted = reader.get("/ui/documents/file", params={"path": "/memories/gone.md"})
        assert deleted.status_code == 200 and 'id="deleted"' in deleted.text
        assert reader.get("/ui/documents/file", params={"path": "/memories/secret.md"}).status_code == 404
        assert reader.get("/ui/documents/file", params={"path": "/etc/passwd"}).status_code == 422


def test_keys_whose_names_hold_a_slash(served: Served) -> None:
    served.memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "Team alpha is led by Mira")
    served.memory.write("acme", "team/alpha", "lead/name", "Mira", "2026-06-01T00:00:00Z", "e1")
    with signed_in(served, "acme", "read") as reader:
        link = re.search(r'href="(/ui/key\?[^"]+)"', reader.get("/ui/").text)
        assert link and link.group(1) == "/ui/key?subject=team%2Falpha&amp;attribute=lead%2Fname"
        page = reader.get("/ui/key", params={"subject": "team/alpha", "attribute": "lead/name"})
        assert page.status_code == 200 and 'data-state="current"' in page.text
        asked = reader.get("/ui/key", params={"subject": "team/alpha", "attribute": "lead/name",
                                             "at": "2026-06-02T00:00:00Z"})
        assert re.search(r'id="held-at".*Mira', asked.text, re.S)


def test_an_episode_page_shows_what_it_was_made_from_and_into(served: Served) -> None:
    memory = served.memory
    memory.add_episode("acme", "chat/1", "2026-06-01T00:00:00Z", "Mira: the launch moves to March 3.")
    memory.add_episode("acme", "sum/<b>", "2026-06-01T01:00:00Z", "Summary: launch on March 3.",
                       derived_from=["chat/1"])
    memory.add_episode("globex", "theirs", "2026-06-01T01:00:00Z", "not acme's", derived_from=[])
    with signed_in(served, "acme", "read") as reader:
        raw = reader.get("/ui/episodes/chat/1")
        assert raw.status_code == 200
        lineage = re.search(r'<section aria-labelledby="lineage-h">(.*?)</section>', raw.text, re.S).group(1)
        assert "no other episode (original)" in lineage
        assert 'href="/ui/episodes/sum/%3Cb%3E"' in lineage and "<code>sum/&lt;b&gt;</code>" in lineage
        summary = reader.get("/ui/episodes/sum/%3Cb%3E")
        assert summary.status_code == 200 and "<b>" not in summary.text.split("<main", 1)[1]
        lineage = re.search(r'<section aria-labelledby="lineage-h">(.*?)</section>', summary.text, re.S).group(1)
        assert 'href="/ui/episodes/chat/1"' in lineage and "Made into: no episode." in lineage
        assert reader.get("/ui/episodes/theirs").status_code == 404


def test_an_erased_subject_is_named_by_no_page(served: Served) -> None:
    """After ``forget_subject`` the key page of one of its keys is a 404 that does not echo
    the name, and no other page names it."""
    memory, name = served.memory, "zqerasedsubject"
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z", "A note about a colour.")
    memory.write("acme", name, "colour", "teal", "2026-06-01T09:00:00Z", "e1")
    memory.write("acme", "ann", "colour", "red", "2026-06-01T09:00:00Z", "e1")
    with signed_in(served, "acme", "read") as reader:
        assert name in reader.get(f"/ui/keys/{name}/colour").text
        memory.forget_subject("acme", name)
        for url in (f"/ui/keys/{name}/colour", f"/ui/key?subject={name}&attribute=colour"):
            page = reader.get(url)
            assert page.status_code == 404 and name not in page.text, url
        for url in ("/ui/", "/ui/keys/ann/colour", "/ui/episodes/e1", "/ui/lifecycle", "/ui/review"):
            page = reader.get(url)
            assert page.status_code == 200 and name not in page.text, url


def test_the_key_page_of_a_set_shows_every_version_of_every_member(served: Served) -> None:
    """A set keeps its members under keys of their own; its key page draws them all,
    with or without an instant asked."""
    served.memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "Team 7 is Mira")
    served.memory.declare("acme", "members", "string", cardinality="many")
    served.memory.write("acme", "team 7", "members", "mira", "2026-06-01T00:00:00Z", "e1")
    with signed_in(served, "acme", "read") as reader:
        for params in ({}, {"at": "2026-06-02T00:00:00Z"}, {"known_at": "2026-06-02T00:00:00Z"}):
            page = reader.get("/ui/key", params={"subject": "team 7", "attribute": "members", **params})
            assert page.status_code == 200 and "mira" in page.text, params