"""The HTML report as a file: ``--html`` on replay, tools check and tools fuzz, and
``agentforge report`` merging ``--json`` outputs; what the page embeds, and the errors.
(The page as drawn in a browser: ``test_report_browser.py``.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_support import CRM, TRANSCRIPTS
from report_data import embedded, replay_document, write_json

from agentforge_cli.cli.report import document_kind, render_page

HOSTILE = '</script><script>document.title="owned"</script><!--<script>'


def test_the_data_cannot_end_its_script_element() -> None:
    document = replay_document(3)
    document["calls"][0]["actual"] = HOSTILE
    document["calls"][1]["expected"] = "a & b > c \u2028 <b>bold</b>"
    page = render_page([("hostile", document)])
    assert page.count("</script>") == 2  # the data's own end, and the script's
    assert "<!--<script>" not in page
    data = embedded(page)
    assert data["runs"] == [{"kind": "replay", "source": "hostile", "document": document}]


def test_a_lone_surrogate_in_a_result_is_embedded_as_an_escape() -> None:
    document = replay_document(1)
    document["calls"][0]["actual"] = "half \ud800 of a pair"
    page = render_page([("surrogate", document)])
    page.encode("utf-8")  # writable as UTF-8
    assert embedded(page)["runs"][0]["document"]["calls"][0]["actual"] == "half \ud800 of a pair"


def test_the_page_holds_its_styles_and_script_and_asks_nothing_of_the_network() -> None:
    page = render_page([("r", replay_document(1))])
    assert "/*AGENTFORGE-REPORT" not in page
    assert "<link" not in page and " src=" not in page
    assert "default-src 'none'" in page  # the page's own policy: no request leaves it


@pytest.mark.parametrize("document, kind", [
    (replay_document(1), "replay"),
    ({"files": [], "summary": {}, "transcripts": 0}, "replay"),
    ({"ok": True, "summary": {"error": 0}, "findings": []}, "check"),
    ({"ok": True, "seed": 1, "tools": []}, "fuzz"),
    ({"summary": {}}, None), ([], None), ("text", None),
])
def test_a_document_is_told_by_its_members(document: Any, kind: str | None) -> None:
    assert document_kind(document) == kind


def test_replay_html_embeds_the_json_document(cli: Any, tmp_path: Path) -> None:
    page = tmp_path / "deep" / "replay.html"
    transcript = str(TRANSCRIPTS / "crm_mismatch.jsonl")
    as_json = cli("replay", transcript, "-t", CRM, "--json")
    with_html = cli("replay", transcript, "-t", CRM, "--html", str(page))
    assert with_html.exit_code == as_json.exit_code == 1
    assert "mismatched" in with_html.stdout  # the trace is still the output
    run = embedded(page.read_text(encoding="utf-8"))["runs"][0]
    expected = json.loads(as_json.stdout)
    for call in (*expected["calls"], *run["document"]["calls"]):
        call.pop("duration_ms")
    assert run["kind"] == "replay" and run["document"] == expected


def test_replay_html_of_several_transcripts_with_json_beside_it(cli: Any,
                                                                tmp_path: Path) -> None:
    page = tmp_path / "replay.html"
    done = cli("replay", str(TRANSCRIPTS / "crm_drift.jsonl"), str(TRANSCRIPTS / "crm.jsonl"),
               "-t", CRM, "--json", "--html", str(page))
    assert done.exit_code == 1
    printed = json.loads(done.stdout)
    shown = embedded(page.read_text(encoding="utf-8"))["runs"][0]["document"]
    assert shown["summary"] == printed["summary"] == {"matched": 2, "mismatched": 0,
                                                      "unrecorded": 0, "drifted": 1}
    assert [f["transcript"] for f in shown["files"]] == [f["transcript"]
                                                        for f in printed["files"]]


def test_check_html_embeds_the_json_document(cli: Any, tmp_path: Path) -> None:
    page = tmp_path / "check.html"
    args = ("tools", "check", "sample_tools.shop", "--provider", "gemini", "--provider",
            "openai-strict")
    as_json = cli(*args, "--json")
    with_html = cli(*args, "--html", str(page))
    assert with_html.exit_code == as_json.exit_code == 1
    run = embedded(page.read_text(encoding="utf-8"))["runs"][0]
    assert run == {"kind": "check", "source": "agentforge tools check",
                   "document": json.loads(as_json.stdout)}


def test_fuzz_html_embeds_the_json_document(cli: Any, tmp_path: Path) -> None:
    page = tmp_path / "fuzz.html"
    args = ("tools", "fuzz", "sample_tools.fragile", "--seed", "0", "--examples", "30")
    as_json = cli(*args, "--json")
    with_html = cli(*args, "--html", str(page))
    assert with_html.exit_code == as_json.exit_code == 1
    run = embedded(page.read_text(encoding="utf-8"))["runs"][0]
    assert run["kind"] == "fuzz" and run["document"] == json.loads(as_json.stdout)
    assert run["document"]["tools"][0]["failures"][0]["command"].startswith(
        "agentforge tools call")


def test_report_merges_several_results(cli: Any, tmp_path: Path) -> None:
    first = write_json(tmp_path / "a.json", replay_document(5, transcript="a.jsonl"))
    check = cli("tools", "check", "sample_tools.shop", "--json")
    second = tmp_path / "check.json"
    second.write_text(check.stdout, encoding="utf-8")
    page = tmp_path / "out" / "report.html"
    done = cli("report", str(first), str(second), "-o", str(page), "--title", "PR 41")
    assert done.exit_code == 0, done.output
    assert done.stdout == ""  # the page is the product; a note goes to stderr
    data = embedded(page.read_text(encoding="utf-8"))
    assert data["title"] == "PR 41"
    assert [(r["kind"], r["source"]) for r in data["runs"]] == [
        ("replay", str(first)), ("check", str(second))]


@pytest.mark.parametrize("content, said", [
    ("not json", "is not JSON"),
    ('{"hello": 1}', "is not the --json output of replay, tools check or tools fuzz"),
    (b"\xff\xfe", "is not UTF-8 text"),
])
def test_report_refuses_what_is_no_result(cli: Any, tmp_path: Path, content: Any,
                                          said: str) -> None:
    given = tmp_path / "given.json"
    if isinstance(content, bytes):
        given.write_bytes(content)
    else:
        given.write_text(content, encoding="utf-8")
    done = cli("report", str(given), "-o", str(tmp_path / "r.html"))
    assert done.exit_code == 3
    assert said in done.stderr and "Traceback" not in done.output
    assert not (tmp_path / "r.html").exists()


def test_report_of_a_missing_file_exits_3(cli: Any, tmp_path: Path) -> None:
    done = cli("report", str(tmp_path / "missing.json"), "-o", str(tmp_path / "r.html"))
    assert done.exit_code == 3 and "cannot read" in done.stderr


def test_a_page_that_cannot_be_written_exits_2(cli: Any, tmp_path: Path) -> None:
    given = write_json(tmp_path / "a.json", replay_document(1))
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    done = cli("report", str(given), "-o", str(blocker / "r.html"))
    assert done.exit_code == 2 and "cannot write the HTML report" in done.stderr
