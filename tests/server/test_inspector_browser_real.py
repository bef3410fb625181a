"""The inspector in a real headless Chromium on what a real tenant holds: a LangGraph run
stopped at ``interrupt()``, a subject reached by an alias, an erasure previewed under the
name every page shows, an overview of 3,000 subjects, and the phone-width pictures and
tables; at 1280 and 390 px, with screenshots in ``tests/artifacts/screenshots/``."""

from __future__ import annotations

from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from ..langgraph.approval_graph import answer, run_until_asked
from .accessibility import audit
from .test_inspector_browser import WORD_LINES, browser, follow, shot, sign_in, site, visit

__all__ = ["browser", "site"]  # the fixtures, shared with the passport story

WIDTHS = [1280, 390]
PEOPLE = 3_000


def _size(browser: WebDriver, width: int) -> None:
    browser.set_window_size(width, 800 if width > 700 else 844)


def full_shot(browser: WebDriver, name: str, width: int) -> None:
    """The whole page in one picture, from its top."""
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(width, min(max(height + 120, 800), 4000))
    browser.execute_script("window.scrollTo(0, 0)")
    shot(browser, name)
    _size(browser, width)


HIDDEN_SIDEWAYS = """
return [...document.querySelectorAll('.scroll')].filter((box) => box.scrollWidth > box.clientWidth + 1)
  .map((box) => (box.querySelector('table') || box).id || box.className);
"""
"""The boxes whose content is wider than they are: a table there hides columns behind its own scrollbar."""


def _no_sideways_scroll(browser: WebDriver) -> None:
    """Neither the page nor a table inside it scrolls sideways: every column is on screen."""
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= browser.execute_script("return window.innerWidth"), f"the page scrolls sideways: {width}px"
    assert browser.execute_script(HIDDEN_SIDEWAYS) == [], "a table scrolls sideways inside the page"


@pytest.mark.parametrize("width", WIDTHS)
def test_a_run_stopped_at_an_interrupt(browser: WebDriver, site: dict[str, Any], width: int) -> None:
    """The thread page of a real LangGraph run that called ``interrupt()``: waiting, for
    what, the state's values, checkpoint times, and a link to the subject it is about."""
    memory = site["memory"]
    run_until_asked(memory, thread_id="report-1", subject="Mira Jansen")
    run_until_asked(memory, thread_id="report-2", subject="Mira Jansen")
    answer(memory, False, thread_id="report-2", subject="Mira Jansen")
    _size(browser, width)
    sign_in(browser, site["url"], site["keys"]["read"])
    follow(browser, browser.find_element(By.LINK_TEXT, "Threads"))
    rows = browser.find_elements(By.CSS_SELECTOR, "#threads tbody tr")
    assert len(rows) == 2 and all("+00:00" not in row.text and "T" not in row.text.split()[-1] for row in rows)
    _no_sideways_scroll(browser)
    full_shot(browser, f"threads-{width}", width)
    follow(browser, browser.find_element(By.LINK_TEXT, "report-1"))
    assert browser.find_element(By.ID, "status").text.startswith("Waiting: the run is stopped at an interrupt")
    assert "next: ask" in browser.find_element(By.ID, "status").text
    waiting = browser.find_element(By.ID, "waiting").text
    assert '"question": "approve the report?"' in waiting and "<b>draft</b>" in waiting  # stored text, shown as text
    values = browser.find_element(By.ID, "values").text
    assert '"Mira Jansen"' in values and "approved" in values
    times = [row.find_elements(By.TAG_NAME, "td")[1].text for row in
             browser.find_elements(By.CSS_SELECTOR, "#checkpoints tbody tr")]
    assert len(times) == 3 and all(t[:4].isdigit() and len(t) == 19 for t in times)  # 2026-12-06 11:14:57
    _no_sideways_scroll(browser)
    assert audit(browser) == []
    full_shot(browser, f"thread-waiting-{width}", width)
    follow(browser, browser.find_element(By.CSS_SELECTOR, "#about a"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Mira Jansen"
    visit(browser, f"{site['url']}/ui/threads/report-2")
    assert browser.find_element(By.ID, "status").text.startswith("Finished")
    assert not browser.find_elements(By.ID, "waiting")
    full_shot(browser, f"thread-finished-{width}", width)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_subject_reached_by_an_alias(browser: WebDriver, site: dict[str, Any], width: int) -> None:
    site["memory"].alias("acme", "MJ", "Mira Jansen")
    _size(browser, width)
    sign_in(browser, site["url"], site["keys"]["read"])
    visit(browser, f"{site['url']}/ui/subjects/MJ")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Mira Jansen"
    assert browser.find_element(By.ID, "subject-id").text == "mira jansen"
    assert browser.find_element(By.ID, "called").text == "also called MJ"
    assert '"Oslo"' in browser.find_element(By.ID, "attributes").text
    alias = browser.find_element(By.CSS_SELECTOR, "#aliases li").text  # a time as every page shows one
    assert alias.startswith("mj means mira jansen since 2026-") and "T" not in alias and "000000" not in alias
    _no_sideways_scroll(browser)
    full_shot(browser, f"subject-alias-{width}", width)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_erase_preview_under_the_name_pages_show(browser: WebDriver, site: dict[str, Any], width: int) -> None:
    """``Team 7`` as every page spells it previews what "Erase now" then erases."""
    memory = site["memory"]
    _size(browser, width)
    sign_in(browser, site["url"], site["keys"]["admin"])
    visit(browser, f"{site['url']}/ui/erase")
    browser.find_element(By.ID, "target").send_keys("Team 7")
    follow(browser, browser.find_element(By.CSS_SELECTOR, "form.stack button"))
    operations = int(browser.find_element(By.ID, "count-operations").text.split()[0])
    assert operations > 0
    assert "team 7.members" in browser.find_element(By.CSS_SELECTOR, ".preview table").text
    keys = browser.find_elements(By.CSS_SELECTOR, ".preview tbody td:first-child")
    assert len(keys) == 2
    for cell in keys:
        assert browser.execute_script(WORD_LINES, cell, "7.members") == 1, f"{cell.text!r} breaks inside"
    _no_sideways_scroll(browser)
    full_shot(browser, f"erase-preview-name-{width}", width)
    follow(browser, browser.find_element(By.CSS_SELECTOR, "button.danger"))
    done = browser.find_element(By.CSS_SELECTOR, "p[role='status']").text
    assert done.startswith(f"The subject team 7 is gone: {operations} operations")  # what the preview said
    assert memory.query("acme", subject="team 7", all_times=True) == []


@pytest.fixture
def crowd(site: dict[str, Any]) -> dict[str, Any]:
    """A tenant of 3,000 subjects, each with a city, a third of them on a team."""
    memory = site["memory"]
    memory.add_episode("big", "roster", "2026-06-01T00:00:00Z", "The roster.")
    facts = [{"subject": f"Person {n:04d}", "attribute": "city", "value": "Oslo",
              "valid_from": "2026-06-01T00:00:00Z", "source": "roster"} for n in range(PEOPLE)]
    facts += [{"subject": f"Person {n:04d}", "attribute": "team", "value": "atlas",
               "valid_from": "2026-06-01T00:00:00Z", "source": "roster"} for n in range(0, PEOPLE, 3)]
    memory.write_many("big", facts)
    from sgam.access import create_key

    return {**site, "big": create_key(memory, "big", "read").key}


@pytest.mark.parametrize("width", WIDTHS)
def test_the_overview_of_3000_subjects(browser: WebDriver, crowd: dict[str, Any], width: int) -> None:
    _size(browser, width)
    sign_in(browser, crowd["url"], crowd["big"])
    size = browser.execute_script("return document.documentElement.outerHTML.length")
    assert size < 150_000, f"the first page is {size} characters"
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#subjects td[data-label='subject'] a")]
    assert names[:2] == ["Person 0000", "Person 0001"] and len(names) < PEOPLE  # display names, one page
    _no_sideways_scroll(browser)
    assert audit(browser) == []
    full_shot(browser, f"overview-big-{width}", width)
    follow(browser, browser.find_element(By.ID, "next-page"))
    following = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#subjects td[data-label='subject'] a")]
    assert following and following[0] >= names[-1]  # the next page goes on where this one ended
    browser.find_element(By.ID, "subject-filter").send_keys("PERSON 2050")
    follow(browser, browser.find_element(By.CSS_SELECTOR, "#filter button"))
    assert [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#subjects td[data-label='subject'] a")] == [
        "Person 2050"]
    assert browser.find_element(By.CSS_SELECTOR, "#subjects td[data-label='keys']").text == "city (1)"
    full_shot(browser, f"overview-filtered-{width}", width)


def test_recent_episodes_say_both_times(browser: WebDriver, site: dict[str, Any]) -> None:
    """Newest recorded first, each with when it was recorded and when it happened: e0,
    about May 30, was recorded after e2, about June 3."""
    sign_in(browser, site["url"], site["keys"]["read"])
    items = browser.find_elements(By.CSS_SELECTOR, "ul.episodes > li")
    ids = [item.find_element(By.TAG_NAME, "a").text for item in items]
    assert ids.index("e0") < ids.index("e2")
    e0 = items[ids.index("e0")].find_element(By.CSS_SELECTOR, ".meta").text
    assert e0.startswith("recorded 2026-06-04 08:00 · happened 2026-05-30 08:00")


def test_pictures_and_tables_at_phone_width(browser: WebDriver, site: dict[str, Any]) -> None:
    """At 390 px the neighbourhood and the set's timeline are whole on screen with labels
    of their own size, and the quarantine table breaks no word."""
    memory = site["memory"]
    memory.declare("acme", "budget", "string")
    memory.write("acme", "p1", "budget", "lots", "2026-06-01T00:00:00Z", "e1")
    memory.retype("acme", "budget", "integer", quarantine=True, decided_by="ops")
    memory.write("acme", "p1", "motto", "slow is smooth and smooth is fast", "2026-06-01T00:00:00Z", "e1")
    memory.write("acme", "p1", "motto", "measure twice, cut once", "2026-07-01T00:00:00Z", "e1")
    _size(browser, 390)
    sign_in(browser, site["url"], site["keys"]["read"])
    visit(browser, f"{site['url']}/ui/subjects/team%207?at=2026-04-01T00:00:00Z")
    for picture in ("svg.neighbourhood", "svg.timeline"):
        _whole_at_phone_width(browser, picture)
    nodes = [n.text for n in browser.find_elements(By.CSS_SELECTOR, "figure.narrow-only g.node text.nodelabel")]
    assert sorted(nodes) == ["Mira Jansen", "Team 7", "ilse"]
    _no_sideways_scroll(browser)
    assert audit(browser) == []
    full_shot(browser, "subject-390", 390)
    visit(browser, f"{site['url']}/ui/key?subject=p1&attribute=motto")
    _whole_at_phone_width(browser, "svg.timeline")
    _no_sideways_scroll(browser)
    full_shot(browser, "key-390", 390)
    visit(browser, f"{site['url']}/ui/schema")
    reason = browser.find_element(By.CSS_SELECTOR, "#quarantine td[data-label='reason']")
    for word in reason.text.split()[:8]:
        assert browser.execute_script(WORD_LINES, reason, word) == 1, f"{word!r} breaks inside"
    _no_sideways_scroll(browser)
    full_shot(browser, "schema-quarantine-390", 390)


def _whole_at_phone_width(browser: WebDriver, picture: str) -> None:
    """One drawing of ``picture`` is shown, inside the 390 px screen, with labels of at least 11 px."""
    shown = [svg for svg in browser.find_elements(By.CSS_SELECTOR, picture) if svg.is_displayed()]
    assert len(shown) == 1, picture
    box = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.right];",
                                 shown[0])
    assert box[0] >= 0 and box[1] <= 390, f"{picture} spans {box}"
    labels = shown[0].find_elements(By.CSS_SELECTOR, "text")
    heights = [browser.execute_script("return arguments[0].getBoundingClientRect().height;", label)
               for label in labels if label.text]
    assert heights and min(heights) >= 11, f"{picture} labels are {min(heights)} px high"
