"""The overview of a tenant with many subjects: paged, filtered by any name of a subject
or by attribute, subjects shown by their display names, every count its key's whole."""

from __future__ import annotations

import re
from collections import Counter

from sgam.server.ui.pages import OVERVIEW_PAGE_ROWS

from .conftest import Served
from .test_inspector_http import signed_in

SUBJECTS = 700


def _seed(served: Served) -> Counter[tuple[str, str]]:
    memory = served.memory
    memory.add_episode("acme", "e1", "2026-06-01T00:00:00Z", "A roster.")
    facts = [{"subject": f"Person {n:04d}", "attribute": "city", "value": "Oslo",
              "valid_from": "2026-06-01T00:00:00Z", "source": "e1"} for n in range(SUBJECTS)]
    facts += [{"subject": f"Person {n:04d}", "attribute": "city", "value": "Bergen",
               "valid_from": "2026-06-02T00:00:00Z", "source": "e1"} for n in range(0, SUBJECTS, 7)]
    facts += [{"subject": f"Person {n:04d}", "attribute": "team", "value": "atlas",
               "valid_from": "2026-06-01T00:00:00Z", "source": "e1"} for n in range(0, SUBJECTS, 3)]
    memory.write_many("acme", facts)
    memory.alias("acme", "P7", "person 0007")
    return Counter((a.subject, a.attribute) for a in memory.query("acme", all_times=True, limit=10_000))


ROW = re.compile(r'<tr><td class="wrap" data-label="subject"><a href="/ui/subjects/([^"]+)">([^<]+)</a></td>\n'
                 r'<td data-label="keys">(.*?)</td></tr>')
KEY = re.compile(r'<a href="/ui/keys/[^/]+/([^"]+)" class="wrap">[^<]+</a> <span class="meta">\((\d+)\)</span>')


def _listed(page: str) -> dict[tuple[str, str], int]:
    found = {}
    for subject, display, keys in ROW.findall(page):
        assert display.startswith("Person ")  # the display name, not the id
        for attribute, count in KEY.findall(keys):
            found[(subject.replace("%20", " "), attribute)] = int(count)
    return found


def test_the_overview_is_paged_and_every_count_is_whole(served: Served) -> None:
    expected = _seed(served)
    assert len(expected) > OVERVIEW_PAGE_ROWS  # more keys than one page holds
    seen: dict[tuple[str, str], int] = {}
    pages, url = 0, "/ui/"
    with signed_in(served, "acme", "read") as client:
        while url:
            page = client.get(url)
            assert page.status_code == 200
            assert len(page.content) < 200_000
            pages += 1
            for key, count in _listed(page.text).items():
                assert seen.setdefault(key, count) == count  # a key on two pages: the same whole count
            following = re.search(r'<a href="(/ui/\?[^"]+)" rel="next"', page.text)
            url = following.group(1).replace("&amp;", "&") if following else ""
    assert pages >= 3 and seen == dict(expected)


def test_the_overview_filters_by_any_name_and_by_attribute(served: Served) -> None:
    _seed(served)
    with signed_in(served, "acme", "read") as client:
        one = client.get("/ui/", params={"subject": "P7"})  # an alias: the subject it names
        assert _listed(one.text) == {("person 0007", "city"): 2}
        assert ">Person 0007</a>" in one.text and 'rel="next"' not in one.text
        assert _listed(client.get("/ui/", params={"subject": "PERSON 0021"}).text) == {
            ("person 0021", "city"): 2, ("person 0021", "team"): 1}
        teams = client.get("/ui/", params={"attribute": "team"})
        assert set(attribute for _, attribute in _listed(teams.text)) == {"team"}
        assert "Nothing recorded matches." in client.get("/ui/", params={"subject": "nobody"}).text
        bad = client.get("/ui/", params={"after": "not-a-cursor"})
        assert bad.status_code == 422 and "cursor" in bad.text
