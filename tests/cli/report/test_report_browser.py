"""The HTML report drawn by headless Chromium (Debian's package; ``make install``
installs it), driven over the DevTools protocol (``chromium_page.py``): no console error,
no request leaving the file, the counts in the page equal to the JSON's, filters that
hide what they should, hostile text shown as text, and a 10 000-call report that opens.
A screenshot of each view, at 1280 px and on a phone, is written into the test's
``tmp_path`` (never committed). The browser is stopped after each test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chromium_page import Page, browser_page
from cli_support import CRM, TRANSCRIPTS
from report_data import replay_document, write_json

VERDICTS = ("matched", "mismatched", "unrecorded", "drifted")


@pytest.fixture
def page() -> Iterator[Page]:
    with browser_page() as opened:  # killed in the block's finally, pass or fail
        opened.viewport(1280, 900)
        yield opened


@pytest.fixture
def merged(cli: Any, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A report of a real replay (several transcripts), tools check and tools fuzz, as
    ``agentforge report`` merges their ``--json`` outputs; the page and the documents."""
    runs = {
        "replay": cli("replay", *(str(TRANSCRIPTS / name) for name in (
            "crm_mismatch.jsonl", "crm_drift.jsonl", "crm.jsonl")), "-t", CRM, "--json"),
        "check": cli("tools", "check", "sample_tools.shop", "--provider", "gemini",
                     "--provider", "openai-strict", "--json"),
        "fuzz": cli("tools", "fuzz", "sample_tools.fragile", "--seed", "0", "--examples",
                    "30", "--json"),
    }
    documents = {kind: json.loads(done.stdout) for kind, done in runs.items()}
    files = [write_json(tmp_path / f"{kind}.json", doc) for kind, doc in documents.items()]
    html = tmp_path / "report.html"
    done = cli("report", *map(str, files), "-o", str(html))
    assert done.exit_code == 0, done.output
    return html, documents


def _count(page: Page, key: str) -> int:
    return int(page.evaluate(f"document.querySelector('[data-count=\"{key}\"]').textContent"))


def _choose(page: Page, view: str, name: str, value: str) -> None:
    """Set one filter of ``view`` (verdict, tool or search) as a user would."""
    page.evaluate(f"""(() => {{
      const field = document.querySelector('#view-{view} [data-filter="{name}"]');
      field.value = {json.dumps(value)};
      field.dispatchEvent(new Event(field.tagName === 'INPUT' ? 'input' : 'change'));
    }})()""")
    if name == "search":  # the search waits for the typing to pause
        page.wait_for(f"document.querySelector('#view-{view} [data-shown]').dataset.for "
                      f"=== {json.dumps(value)}")


def _show(page: Page, view: str) -> None:
    page.evaluate(f"location.hash = '{view}'")
    page.wait_for(f"document.body.dataset.view === '{view}'")


def _open_all(page: Page) -> None:
    page.evaluate("document.querySelectorAll('details.transcript').forEach(d => d.open = true)")
    page.wait_for("[...document.querySelectorAll('details.transcript')]"
                  ".every(d => d.hidden || d.querySelector('.call, .empty'))")


def _visible(page: Page, selector: str) -> list[str]:
    """``data-verdict`` of each element matched that is drawn (not in a hidden box)."""
    return page.evaluate(f"[...document.querySelectorAll({json.dumps(selector)})]"
                         ".filter(e => e.offsetParent !== null).map(e => e.dataset.verdict)")


def test_every_view_renders_without_errors_and_counts_equal_the_json(
        page: Page, merged: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    html, documents = merged
    page.open(html.as_uri())
    replay = documents["replay"]
    for verdict in VERDICTS:
        assert _count(page, f"replay-{verdict}") == replay["summary"].get(verdict, 0)
    assert _count(page, "replay-calls") == sum(replay["summary"].values())
    assert _count(page, "replay-transcripts") == replay["transcripts"] == 3
    for level, count in documents["check"]["summary"].items():
        assert _count(page, f"check-{level}") == count
    fuzzed = documents["fuzz"]["tools"]
    assert _count(page, "fuzz-calls") == sum(t["examples"] for t in fuzzed)
    assert _count(page, "fuzz-failures") == sum(len(t["failures"]) for t in fuzzed)

    for width, height, mobile, name in ((1280, 900, False, "desktop"), (390, 844, True, "phone")):
        page.viewport(width, height, mobile=mobile)
        for view in ("summary", "replay", "checks", "fuzz"):
            _show(page, view)
            if view == "replay":
                _open_all(page)
            shot = tmp_path / f"{view}-{name}.png"
            page.screenshot(shot)
            assert shot.stat().st_size > 5000
        # nothing wider than the screen but the tables' own scrolling boxes
        assert page.evaluate("document.documentElement.scrollWidth") <= width

    _show(page, "replay")
    calls = [call for file in replay["files"] for call in file["calls"]]
    assert sorted(_visible(page, "article.call")) == sorted(c["status"] for c in calls)
    _show(page, "fuzz")
    command = documents["fuzz"]["tools"][0]["failures"][0]["command"]
    assert page.evaluate("document.querySelector('#view-fuzz .command').textContent") == command
    assert page.problems() == []


def test_filters_hide_what_they_should(page: Page,
                                      merged: tuple[Path, dict[str, Any]]) -> None:
    html, documents = merged
    page.open(html.as_uri() + "#replay")
    _open_all(page)
    _choose(page, "replay", "verdict", "mismatched")
    assert _visible(page, "article.call") == ["mismatched"]
    transcripts = page.evaluate("[...document.querySelectorAll('details.transcript')]"
                                ".filter(d => !d.hidden).map(d => d.querySelector('.path')"
                                ".textContent)")
    assert transcripts == [str(TRANSCRIPTS / "crm_mismatch.jsonl")]
    assert page.evaluate("document.querySelectorAll('#view-replay tr.d-changed').length") == 1
    _choose(page, "replay", "verdict", "")
    _choose(page, "replay", "search", "小明")
    assert sorted(_visible(page, "article.call")) == ["matched", "mismatched"]
    _choose(page, "replay", "search", "")
    _choose(page, "replay", "verdict", "drifted")
    assert _visible(page, "article.call") == ["drifted"]
    assert page.evaluate("document.querySelector('mark.drifted-key').textContent") == \
        '"customer"'

    _show(page, "checks")
    _choose(page, "checks", "verdict", "error")
    errors = [f for f in documents["check"]["findings"] if f["level"] == "error"]
    assert _visible(page, "#view-checks .finding") == ["error"] * len(errors)
    _choose(page, "checks", "verdict", "")
    _choose(page, "checks", "tool", "check_stock")
    tools = page.evaluate("[...document.querySelectorAll('#view-checks .finding')]"
                          ".map(e => e.dataset.tool)")
    assert tools == ["check_stock"] * sum(f["tool"] == "check_stock"
                                          for f in documents["check"]["findings"])
    assert page.problems() == []


def test_hostile_text_is_shown_as_text(page: Page, cli: Any, tmp_path: Path) -> None:
    document = replay_document(10)
    hostile = ('</script><img src=x onerror="document.title=\'owned\'">'
               '<script>document.title="owned"</script>')
    document["calls"][9]["actual"] = hostile  # a mismatched call: shown in the diff
    document["calls"][0]["name"] = "<b>tool</b>"
    document["transcript"] = "<i>file</i>.jsonl"
    html = tmp_path / "hostile.html"
    assert cli("report", str(write_json(tmp_path / "h.json", document)), "-o",
               str(html)).exit_code == 0
    page.open(html.as_uri() + "#replay")
    _open_all(page)
    assert page.evaluate("document.title") == "agentforge report"
    assert page.evaluate("document.querySelectorAll('img, b, i').length") == 0
    shown = page.evaluate("document.getElementById('view-replay').textContent")
    assert hostile in shown and "<b>tool</b>" in shown and "<i>file</i>.jsonl" in shown
    assert page.problems() == []


def test_a_json_result_is_diffed_by_its_members_with_scrubbed_parts_marked(
        page: Page, cli: Any, tmp_path: Path) -> None:
    document = replay_document(10)
    call = document["calls"][9]
    call["expected"] = json.dumps({"id": 7, "at": "2024-01-01", "items": [1, 2], "gone": 1})
    call["actual"] = json.dumps({"id": 8, "at": "2025-02-02", "items": [1, 2], "new": 2})
    call["scrubbed"] = ["$.at (timestamps)"]
    html = tmp_path / "diff.html"
    cli("report", str(write_json(tmp_path / "d.json", document)), "-o", str(html))
    page.open(html.as_uri() + "#replay")
    _open_all(page)
    rows = page.evaluate("[...document.querySelectorAll('article.call[data-verdict=mismatched]"
                         " tr[data-diff]')].map(r => [r.dataset.diff, r.cells[0].textContent,"
                         " r.cells[1].textContent])")
    assert ["changed", '  "id": 7,', '  "id": 8,'] in rows
    assert ["scrubbed", '  "at": "2024-01-01",', '  "at": "2025-02-02",'] in rows
    assert ["removed", '  "gone": 1,', ""] in rows
    assert ["added", "", '  "new": 2'] in rows
    assert ["same", '    1,', '    1,'] in rows
    assert page.problems() == []


def test_ten_thousand_calls_open_with_counts_equal_to_the_json(
        page: Page, cli: Any, tmp_path: Path) -> None:
    document = replay_document(10_000)
    html = tmp_path / "big.html"
    cli("report", str(write_json(tmp_path / "big.json", document)), "-o", str(html))
    page.open(html.as_uri())
    for verdict, count in document["summary"].items():
        assert _count(page, f"replay-{verdict}") == count
    _show(page, "replay")
    _open_all(page)
    assert page.evaluate("document.querySelectorAll('article.call').length") == 200
    page.evaluate("document.querySelector('#view-replay button.more').click()")
    assert page.evaluate("document.querySelectorAll('article.call').length") == 400
    _choose(page, "replay", "verdict", "unrecorded")
    assert page.evaluate("document.querySelector('#view-replay [data-shown]').textContent") \
        == "200 calls shown"
    assert page.problems() == []
