"""The web inspector in a real headless Chromium: the passport story end to end.

Chromium and chromedriver come from Debian's packages (``make test`` installs them when
missing and it may); without them these tests fail, never skip. Screenshots of each page
land in ``tests/artifacts/screenshots/`` (git-ignored).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from sgam import AsyncMemory, Memory
from sgam.access import create_key
from sgam.extraction import ExtractionPolicy, ScriptedClient
from sgam.server import create_app

from ..conftest import ManualClock
from .accessibility import audit
from .conftest import ServerThread, free_port
from .test_inspector_subjects import seed_shape

SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
KEY = "/ui/keys/mira/passport_deadline"


def seed(memory: Memory, clock: ManualClock) -> None:
    """The passport story: e1 then e2 a week apart, the older e0 recorded late, and a
    sensitive candidate held for review; before it, a team whose members change."""
    seed_shape(memory, clock)
    memory.write("acme", "Mira Kowalski", "city", "Gdansk", "2026-01-05T09:00:00Z", "t1")
    ambiguous = {"updates": [{"evidence": "Mira moved to Berlin.", "subject": "Mira", "attribute": "city",
                              "current_value": None, "change": "new", "value": "Berlin", "valid_from": None,
                              "confidence": 0.9}]}
    memory.remember("acme", "m1", "2026-05-30T07:00:00Z", "Mira Jansen met Mira Kowalski. Mira moved to Berlin.",
                    client=ScriptedClient.of([ambiguous]), policy=ExtractionPolicy())
    clock.set("2026-06-01T09:00:05+00:00")
    memory.declare("acme", "passport_deadline", "date")
    memory.add_episode("acme", "e1", "2026-06-01T09:00:00Z",
                       "Mira prefers concise answers. Her passport deadline is 2026-07-15.", speaker="mira")
    memory.write("acme", "mira", "passport_deadline", "2026-07-15", "2026-06-01T09:00:00Z", "e1")
    clock.set("2026-06-03T10:00:05+00:00")
    memory.add_episode("acme", "e2", "2026-06-03T10:00:00Z", "Mira corrected the deadline. It is now 2026-06-30.")
    memory.write("acme", "mira", "passport_deadline", "2026-06-30", "2026-06-03T10:00:00Z", "e2")
    memory.add_episode("acme", "s2", "2026-06-03T11:00:00Z", "Summary: the passport deadline moved to June 30.",
                       derived_from=["e2"])
    clock.set("2026-06-04T08:00:00+00:00")
    memory.add_episode("acme", "e0", "2026-05-30T08:00:00Z", "Mira's passport deadline is 2026-08-01.")
    memory.write("acme", "mira", "passport_deadline", "2026-08-01", "2026-05-30T08:00:00Z", "e0")
    memory.declare("acme", "diagnosis", "string", sensitive=True)
    text = 'Mira was diagnosed with asthma. <script>alert(1)</script>" onmouseover="x'
    reply = {"updates": [{"evidence": "Mira was diagnosed with asthma.", "subject": "mira",
                          "attribute": "diagnosis", "current_value": None, "change": "new", "value": "asthma",
                          "valid_from": None, "confidence": 0.9}]}
    memory.remember("acme", "e3", "2026-06-04T07:00:00Z", text, client=ScriptedClient.of([reply]),
                    policy=ExtractionPolicy())
    memory.add_episode("acme", "long", "2026-06-04T07:30:00Z", "x" * 3000)
    memory.retention("acme", "chat", "P30D")
    memory.add_episode("acme", "c1", "2026-06-04T07:40:00Z", "Small talk", retention="chat")
    memory.consent("acme", "omar", False)
    memory.documents.create("acme", "/memories/mira.md", "Mira\npassport due 2026-07-15\n")
    memory.documents.str_replace("acme", "/memories/mira.md", "2026-07-15", "2026-06-30")


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, "Debian's chromium and chromium-driver must be installed (make test installs them)"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(flag)
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    chrome.set_page_load_timeout(60)
    try:
        yield chrome
    finally:
        chrome.quit()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[dict[str, Any]]:
    clock = ManualClock()
    with Memory(f"sqlite:///{tmp_path / 'ui.db'}", clock=clock) as memory:
        seed(memory, clock)
        keys = {name: create_key(memory, tenant, scope).key
                for name, tenant, scope in (("admin", "acme", "admin"), ("read", "acme", "read"),
                                            ("other", "globex", "admin"))}
        port = free_port()
        app = create_app(AsyncMemory(memory, workers=2), public_url=f"http://127.0.0.1:{port}")
        with ServerThread(app, port):
            yield {"url": f"http://127.0.0.1:{port}", "keys": keys, "memory": memory}


def shot(browser: WebDriver, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SHOTS / f"{name}.png"))


def detached(element: WebElement) -> bool:
    """Whether the page holding ``element`` is gone. Chromium reports a node of a replaced
    page either as stale or as "does not belong to the document"; both mean it is gone."""
    try:
        element.is_enabled()
    except WebDriverException:
        return True
    return False


def follow(browser: WebDriver, element: WebElement) -> None:
    """Click a link or a submit button and wait until the next page has replaced this one
    (a click returns before the navigation it starts has finished)."""
    page = browser.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(browser, 60).until(lambda _: detached(page))
    WebDriverWait(browser, 60).until(lambda b: b.execute_script("return document.readyState") == "complete")


def visit(browser: WebDriver, url: str) -> None:
    """Open ``url`` and wait until its page is rendered: under load Chromium can answer a
    read of the page before the new document exists, and an empty page passes every
    "is not shown" check."""
    browser.get(url)
    WebDriverWait(browser, 60).until(lambda b: b.find_elements(By.TAG_NAME, "h1"))


def sign_in(browser: WebDriver, url: str, key: str) -> None:
    browser.delete_all_cookies()
    visit(browser, f"{url}/ui/sign-in")
    browser.find_element(By.ID, "key").send_keys(key)
    follow(browser, browser.find_element(By.CSS_SELECTOR, "form.stack button"))


def states(browser: WebDriver) -> list[str]:
    """The versions' states on the wide timeline (the page draws a phone's copy too)."""
    return [g.get_attribute("data-state") or ""
            for g in browser.find_elements(By.CSS_SELECTOR, "figure.wide-only g.version")]


def test_the_passport_story_in_a_browser(browser: WebDriver, site: dict[str, Any]) -> None:
    url = site["url"]
    visit(browser, f"{url}/ui/")
    assert "/ui/sign-in" in browser.current_url  # no session, no page
    shot(browser, "sign-in")
    sign_in(browser, url, site["keys"]["admin"])
    assert browser.find_element(By.TAG_NAME, "h1").text == "Overview"
    assert "passport_deadline" in browser.page_source
    assert browser.execute_script("return document.querySelectorAll('script').length") == 0  # stored <script> inert
    assert "<script>alert(1)</script>" in browser.find_element(By.TAG_NAME, "main").text
    shot(browser, "overview")

    follow(browser, browser.find_element(By.LINK_TEXT, "passport_deadline"))
    assert browser.current_url.endswith(KEY)
    assert states(browser).count("current") == 1
    assert len([s for s in states(browser) if s != "superseded"]) == 3  # e0, e1 (ended by e2), e2
    current = browser.find_element(By.CSS_SELECTOR, "g.version.current text.barlabel").text
    assert "2026-06-30" in current and "current" in current
    browser.find_element(By.ID, "at").send_keys("2026-06-02T00:00:00Z")
    browser.find_element(By.ID, "known_at").send_keys("2026-06-02T00:00:00Z")
    follow(browser, browser.find_element(By.CSS_SELECTOR, "form.reader button"))
    assert '"2026-07-15"' in browser.find_element(By.ID, "held-at").text
    assert '"2026-07-15"' in browser.find_element(By.ID, "believed-at").text
    shot(browser, "key-timeline")

    follow(browser, browser.find_element(By.CSS_SELECTOR, "table.versions a[href='/ui/episodes/e2']"))
    assert "corrected the deadline" in browser.find_element(By.CSS_SELECTOR, ".episode-text").text
    shot(browser, "episode")
    lineage = "section[aria-labelledby='lineage-h'] a"
    follow(browser, browser.find_element(By.CSS_SELECTOR, f"{lineage}[href='/ui/episodes/s2']"))
    assert "Summary: the passport deadline" in browser.find_element(By.CSS_SELECTOR, ".episode-text").text
    assert browser.find_element(By.CSS_SELECTOR, lineage).text == "e2"

    visit(browser, f"{url}/ui/episodes/e3")
    assert browser.find_element(By.TAG_NAME, "mark").text == "Mira was diagnosed with asthma."
    visit(browser, f"{url}/ui/review")
    shot(browser, "review")
    diagnosis = site["memory"].held("acme")[-1].id
    follow(browser, browser.find_element(By.CSS_SELECTOR, f"button[aria-label='Confirm candidate {diagnosis}']"))
    assert not browser.find_elements(By.ID, f"held-{diagnosis}")
    assert 'mira.diagnosis = "asthma" is written' in browser.find_element(By.ID, "flash").text
    assert site["memory"].get("acme", "mira", "diagnosis").value == "asthma"

    visit(browser, f"{url}/ui/erase?kind=episode&target=e2")
    assert browser.find_element(By.ID, "count-episodes").text.startswith("2 ")  # e2 and its summary
    assert "2026-07-15" in browser.find_element(By.CSS_SELECTOR, ".preview table").text
    assert site["memory"].episode("acme", "e2") is not None  # a preview erases nothing
    shot(browser, "erase-preview")
    follow(browser, browser.find_element(By.CSS_SELECTOR, "button.danger"))
    assert "is gone" in browser.find_element(By.TAG_NAME, "main").text
    assert site["memory"].episode("acme", "s2") is None
    visit(browser, f"{url}{KEY}")
    current = browser.find_element(By.CSS_SELECTOR, "g.version.current text.barlabel").text
    assert "2026-07-15" in current  # the neighbour holds again
    assert "2026-06-30" not in browser.page_source
    shot(browser, "key-after-erasure")

    follow(browser, browser.find_element(By.LINK_TEXT, "Lifecycle"))
    chat = browser.find_element(By.CSS_SELECTOR, "tr[data-class='chat']").text
    assert "30 days" in chat and "2026-07-04" in chat  # recorded 2026-06-04 08:00, kept 30 days
    assert "omar" in browser.find_element(By.ID, "consents").text
    shot(browser, "lifecycle")
    follow(browser, browser.find_element(By.LINK_TEXT, "Documents"))
    follow(browser, browser.find_element(By.LINK_TEXT, "/memories/mira.md"))
    assert "+passport due 2026-06-30" in browser.find_element(By.ID, "diff").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#revisions tbody tr")) == 2
    shot(browser, "document")

    sign_in(browser, url, site["keys"]["other"])  # another tenant sees none of it
    assert "passport_deadline" not in browser.page_source
    visit(browser, f"{url}{KEY}")
    assert states(browser) == []
    visit(browser, f"{url}/ui/episodes/e1")
    assert "no episode" in browser.page_source and "Mira" not in browser.page_source


PAGES = ["/ui/", KEY, "/ui/subjects/team%207?at=2026-04-01T00:00:00Z", "/ui/subjects/mira%20jansen",
         "/ui/episodes/e3", "/ui/episodes/s2", "/ui/episodes/long", "/ui/review", "/ui/erase",
         "/ui/erase?kind=episode&target=e2", "/ui/lifecycle", "/ui/documents",
         "/ui/documents/file?path=/memories/mira.md", "/ui/episodes/missing"]
"""Every page kind, with a held candidate, the consent and erase forms, and a long value."""


WORD_LINES = """
const [cell, word] = arguments;
const node = [...cell.childNodes].find((n) => n.nodeType === 3 && n.textContent.includes(word));
const range = document.createRange();
const at = node.textContent.indexOf(word);
range.setStart(node, at); range.setEnd(node, at + word.length);
return range.getClientRects().length;
"""
"""How many lines ``word`` takes in ``cell``: 1 unless it is broken inside."""


def test_phone_width_and_scopes(browser: WebDriver, site: dict[str, Any]) -> None:
    """At 390 px, signed in with the widest navigation (admin), no page scrolls sideways
    and Review's buttons are on screen; then what a read key may not do."""
    browser.set_window_size(390, 844)
    sign_in(browser, site["url"], site["keys"]["admin"])
    wide = {}
    for page in PAGES:
        visit(browser, f"{site['url']}{page}")
        width = browser.execute_script("return document.documentElement.scrollWidth")
        if width > 390:
            wide[page] = width
    assert wide == {}, f"pages that scroll sideways at phone width: {wide}"
    visit(browser, f"{site['url']}/ui/review")
    shot(browser, "review-phone")
    for button in browser.find_elements(By.CSS_SELECTOR, "table button"):
        right = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return r.right;", button)
        assert right <= 390, f"{button.text} ends at {right}px"
    held_cell = browser.find_elements(By.CSS_SELECTOR, "#main table td")[3]  # why held: "pending · ..."
    assert browser.execute_script(WORD_LINES, held_cell, "pending") == 1  # a word never breaks across lines
    visit(browser, f"{site['url']}{KEY}")
    shot(browser, "key-phone")

    sign_in(browser, site["url"], site["keys"]["read"])
    visit(browser, f"{site['url']}/ui/lifecycle")
    assert not browser.find_elements(By.CSS_SELECTOR, "form[action='/ui/consent']")  # read scope: no form
    visit(browser, f"{site['url']}/ui/review")
    assert "read-only key" in browser.page_source
    visit(browser, f"{site['url']}/ui/erase")
    assert "forbidden" in browser.page_source  # read scope cannot erase


def test_an_ambiguous_name_is_confirmed_about_the_subject_chosen(browser: WebDriver, site: dict[str, Any]) -> None:
    sign_in(browser, site["url"], site["keys"]["admin"])
    visit(browser, f"{site['url']}/ui/review")
    (held,) = [h for h in site["memory"].held("acme") if h.attribute == "city"]
    choices = browser.find_element(By.ID, f"choices-{held.id}")
    assert [label.text for label in choices.find_elements(By.TAG_NAME, "label")] == [
        "mira jansen", "mira kowalski", "mira (a subject of its own)"]
    confirm = browser.find_element(By.CSS_SELECTOR, f"button[aria-label='Confirm candidate {held.id}']")
    confirm.click()  # no subject chosen: the browser refuses to send the form
    assert browser.find_elements(By.ID, f"held-{held.id}")
    choices.find_element(By.CSS_SELECTOR, "input[value='mira kowalski']").click()
    shot(browser, "review-ambiguous")
    follow(browser, confirm)
    assert 'mira kowalski.city = "Berlin" is written' in browser.find_element(By.ID, "flash").text
    assert site["memory"].get("acme", "mira jansen", "city").value == "Oslo"


def test_a_subject_and_its_neighbourhood_in_a_browser(browser: WebDriver, site: dict[str, Any]) -> None:
    """From the overview to Team 7, read in April, then along the picture's arrow to a member."""
    url = site["url"]
    sign_in(browser, url, site["keys"]["read"])
    subjects = "section[aria-labelledby='subjects-h']"
    follow(browser, browser.find_element(By.CSS_SELECTOR, f"{subjects} a[href='/ui/subjects/team%207']"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Team 7"
    assert [li.text.split(" since")[0] for li in browser.find_elements(By.CSS_SELECTOR, "ul.members li")] == ["ilse"]
    browser.find_element(By.ID, "at").send_keys("2026-04-01T00:00:00Z")
    follow(browser, browser.find_element(By.CSS_SELECTOR, "form.reader button"))
    members = [li.text.split(" since")[0] for li in browser.find_elements(By.CSS_SELECTOR, "ul.members li")]
    assert members == ["ilse", "Mira Jansen"]  # a value named only in a relation keeps no spelling
    nodes = browser.find_elements(By.CSS_SELECTOR, "figure.wide-only svg.neighbourhood g.node")
    labels = browser.find_elements(By.CSS_SELECTOR, "figure.wide-only svg.neighbourhood g.node text.nodelabel")
    assert sorted(label.text for label in labels) == ["Mira Jansen", "Team 7", "ilse"]
    centre = browser.find_element(By.CSS_SELECTOR, "g.node.centre rect").rect
    assert all(abs(n.rect["x"] - centre["x"]) > 10 or abs(n.rect["y"] - centre["y"]) > 10
               for n in nodes if "centre" not in (n.get_attribute("class") or ""))  # nodes do not overlap the centre
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.wide-only svg.timeline g.version")) == 3
    browser.set_window_size(1280, 2000)  # the whole page in one picture
    shot(browser, "subject")
    browser.set_window_size(1280, 800)
    follow(browser, browser.find_element(By.CSS_SELECTOR, "g.node[data-subject='mira jansen'] a"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Mira Jansen"
    assert browser.current_url.endswith("/ui/subjects/mira%20jansen?at=2026-04-01T00%3A00%3A00Z")  # same instant
    assert browser.find_element(By.ID, "inward").text == "Team 7 → members"
    assert '"Oslo"' in browser.find_element(By.ID, "attributes").text
    shot(browser, "subject-member")


@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_passes_the_accessibility_audit(browser: WebDriver, site: dict[str, Any], width: int) -> None:
    """Contrast, control names and a full keyboard walk, at desktop and phone width, on
    every page kind (a held candidate, consent and erase forms included)."""
    browser.set_window_size(width, 800 if width > 700 else 844)
    url = site["url"]
    visit(browser, f"{url}/ui/sign-in")
    assert audit(browser) == []
    sign_in(browser, url, site["keys"]["admin"])
    failures = {}
    for page in PAGES:
        visit(browser, f"{url}{page}")
        found = audit(browser)
        if found:
            failures[page] = found
    assert failures == {}


@pytest.mark.parametrize("width", [1280, 390])
def test_the_schema_page_shows_a_backfill_in_a_browser(browser: WebDriver, site: dict[str, Any], width: int) -> None:
    """A backfill under way: its progress bar is named and readable, and the page passes
    the audit at desktop and phone width."""
    memory = site["memory"]
    for subject in ("p1", "p2", "p3"):
        memory.write("acme", subject, "budget", "12", "2026-06-01T00:00:00Z", "e1")
    memory.retype("acme", "budget", "integer", backfill=True, wait=False)
    memory.run_backfill("acme", batch=2, max_batches=1)
    browser.set_window_size(width, 800 if width > 700 else 844)
    sign_in(browser, site["url"], site["keys"]["read"])
    visit(browser, f"{site['url']}/ui/schema")
    bar = browser.find_element(By.CSS_SELECTOR, "#backfills progress")
    assert (bar.get_attribute("value"), bar.get_attribute("max")) == ("2", "3")
    assert "2 of 3 subjects" in (bar.get_attribute("aria-label") or "")
    assert browser.find_element(By.ID, "index").is_displayed()
    assert audit(browser) == []
    shot(browser, f"schema-backfill-{width}")
