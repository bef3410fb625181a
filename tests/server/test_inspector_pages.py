"""What the inspector's pages say: a timeline scaled to its versions with round ticks and
numbered rows, recent episodes newest first, counts in the right number, durations in
words, and feedback after a form (on both backends)."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

from sgam import Memory
from sgam._core.time import to_micros
from sgam.extraction import ExtractionPolicy, ScriptedClient
from sgam.server.ui.timeline import LABEL, WIDTH, draw, duration_text, round_ticks

from ..conftest import ManualClock
from .conftest import Served
from .test_inspector_http import csrf_of, signed_in


def _history(memory: Memory, clock: ManualClock) -> None:
    """Three versions valid in March, recorded within one minute; read months later."""
    clock.set("2026-03-01T10:00:05+00:00")
    for episode, day, value in (("e1", "01", "Rome"), ("e2", "10", "Oslo"), ("e3", "20", "Lima")):
        memory.add_episode("acme", episode, f"2026-03-{day}T00:00:00Z", f"Mira moved to {value}")
        memory.write("acme", "mira", "city", value, f"2026-03-{day}T00:00:00Z", episode)
        clock.advance(10)
    memory.correct("acme", "mira", "city", "2026-03-10T00:00:00Z", "Bergen", "e2")
    clock.set("2026-11-30T12:00:00+00:00")


def test_the_timeline_spans_the_versions_not_the_time_up_to_now(memory: Memory, clock: ManualClock) -> None:
    _history(memory, clock)
    timeline = draw(memory.versions("acme", "mira", "city"), clock())
    assert timeline.now_x is None  # November is far right of March: not drawn, not squeezing March
    starts = sorted({bar.x for bar in timeline.bars})
    assert starts[0] > LABEL and starts[-1] - starts[0] > 0.6 * (WIDTH - LABEL)  # the 19 days fill the width
    labels = [tick.label for tick in timeline.ticks]
    assert 3 <= len(labels) <= 8 and all(re.fullmatch(r"2026-03-\d\d", label) for label in labels), labels
    assert len({bar.label for bar in timeline.bars}) == len(timeline.bars)  # one minute, rows still differ
    assert len(timeline.bars) >= 4
    assert [bar.label.split(" · ")[0] for bar in timeline.bars] == [f"v{n}" for n in range(1, len(timeline.bars) + 1)]
    assert any(bar.label.endswith(":15") for bar in timeline.bars)  # seconds shown
    corrected = [row for row in timeline.rows if row.version.value == "Bergen"]
    assert len(corrected) == 1 and corrected[0].replaces is not None
    assert timeline.rows[corrected[0].replaces - 1].version.value == "Oslo"


def test_ticks_fall_on_round_instants() -> None:
    def ticks(low: str, high: str) -> list[str]:
        return [label for _, label in round_ticks(to_micros(datetime.fromisoformat(low)),
                                                   to_micros(datetime.fromisoformat(high)))]

    assert ticks("2026-01-03T07:13:00+00:00", "2026-09-20T03:00:00+00:00") == [
        "2026-03-01", "2026-05-01", "2026-07-01", "2026-09-01"]
    hours = ticks("2026-01-03T07:13:00+00:00", "2026-01-03T11:51:00+00:00")
    assert hours == ["01-03 08:00", "01-03 09:00", "01-03 10:00", "01-03 11:00"]
    years = ticks("2019-05-05T00:00:00+00:00", "2026-05-05T00:00:00+00:00")
    assert all(re.fullmatch(r"20\d\d", label) for label in years) and len(years) <= 8
    for _, label in round_ticks(to_micros(datetime(2026, 1, 1, 0, 0, 7, tzinfo=UTC)),
                                to_micros(datetime(2026, 1, 1, 0, 0, 51, tzinfo=UTC))):
        assert int(label[-2:]) % 5 == 0


def test_durations_read_as_words() -> None:
    assert duration_text("P7D") == "7 days"
    assert duration_text("P1D") == "1 day"
    assert duration_text("PT1H30M") == "1 hour 30 minutes"
    assert duration_text("P1DT6H") == "1 day 6 hours"
    assert duration_text(None) == "until erased"


def test_pages_say_what_they_mean(served_at: Served, clock: ManualClock) -> None:
    memory = served_at.memory
    _history(memory, clock)
    memory.write("acme", "zed", "city", "Paris", "2026-03-01T00:00:00Z", "e1")
    with signed_in(served_at) as admin:
        overview = admin.get("/ui/").text
        recent = re.findall(r'<li><a href="/ui/episodes/(e\d)">', overview)
        assert recent == ["e3", "e2", "e1"]  # newest first
        assert '<a href="/ui/keys/zed/city" class="wrap">city</a> <span class="meta">(1)</span>' in overview
        mira_city = len(memory.query("acme", subject="mira", attribute="city", all_times=True))
        assert f'<a href="/ui/keys/mira/city" class="wrap">city</a> <span class="meta">({mira_city})</span>' in overview
        key = admin.get("/ui/keys/mira/city").text
        table = re.search(r'<table class="versions cards">(.*?)</table>', key, re.S).group(1)
        replaced = re.search(r'\(replaces <a href="#(v\d)">(v\d)</a>\)', table)
        assert replaced and f'id="{replaced.group(1)}"' in table  # names a row the page shows
        assert "#" + str(memory.versions("acme", "mira", "city")[0].id) + ")" not in table


def test_review_says_what_a_decision_did(served: Served) -> None:
    memory = served.memory
    memory.declare("acme", "diagnosis", "string", sensitive=True)
    reply = {"updates": [{"evidence": "Mira has asthma.", "subject": "mira", "attribute": "diagnosis",
                          "current_value": None, "change": "new", "value": "asthma", "valid_from": None,
                          "confidence": 0.9}]}
    memory.remember("acme", "e1", "2026-06-04T07:00:00Z", "Mira has asthma.", client=ScriptedClient.of([reply]),
                    policy=ExtractionPolicy())
    held = memory.held("acme")
    assert len(held) == 1
    with signed_in(served, "acme", "write") as writer:
        done = writer.post(f"/ui/review/{held[0].id}/confirm", data={"csrf": csrf_of(writer)})
        assert done.status_code == 303
        page = writer.get("/ui/review").text
        flash = re.search(r'<p class="flash" role="status" id="flash">(.*?)</p>', page, re.S)
        assert flash and html.unescape(flash.group(1)).startswith(
            f'Candidate {held[0].id} confirmed: mira.diagnosis = "asthma" is written')
        assert 'id="flash"' not in writer.get("/ui/review").text
