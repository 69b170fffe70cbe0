"""The HTML report row: a 10 000-call replay report opened in headless Chromium (Debian's
package), against the same page of 100 calls. The figure is the page's own clock: from
the navigation's start to the report drawn (``performance.now()``), plus opening the
transcript (its first page of calls drawn and laid out). Best of three fresh loads."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "cli" / "report"))

_OPEN = """(async () => {
  const started = performance.now();
  const box = document.querySelector('details.transcript');
  const toggled = new Promise((done) => box.addEventListener('toggle', done, {once: true}));
  box.open = true;
  await toggled;
  void document.body.offsetHeight;
  return performance.now() - started;
})()"""


def _open_ms(html: Path) -> float:
    """Best milliseconds over three fresh loads: drawn, then the transcript opened."""
    from chromium_page import browser_page

    best = float("inf")
    with browser_page() as page:
        page.viewport(1280, 900)
        for _ in range(3):
            page.send("Page.navigate", url="about:blank")  # a load, not a jump to a #
            page.wait_for("location.href === 'about:blank'")
            page.open(html.as_uri() + "#replay")
            drawn = page.evaluate("performance.now()")  # ready was polled: an upper bound
            opened = page.evaluate(_OPEN)
            assert page.evaluate("document.querySelectorAll('article.call').length") > 0
            best = min(best, drawn + opened)
        assert page.problems() == []
    return best


def report_row(row: Callable[..., None]) -> None:
    from report_data import replay_document, write_json

    agentforge = str(Path(sys.executable).parent / "agentforge")
    timings = {}
    with tempfile.TemporaryDirectory() as folder:
        for calls in (100, 10_000):
            given = write_json(Path(folder) / f"{calls}.json", replay_document(calls))
            html = Path(folder) / f"{calls}.html"
            subprocess.run([agentforge, "report", str(given), "-o", str(html)], check=True,
                           capture_output=True, cwd=ROOT)
            timings[calls] = _open_ms(html)
    big, small = timings[10_000], timings[100]
    row("HTML report, 10 000 calls opened in Chromium", f"{big:.0f} ms",
        f"100 calls {small:.0f} ms", big / small, "< 2 s", big < 2000)


def corpus_report_row(row: Callable[..., None]) -> None:
    """The report of `make corpus`'s run (every real recording replayed): opened in
    Chromium, against the 100-call page, and its counts equal to the runs' JSON."""
    import json

    sys.path.insert(0, str(ROOT / "tests" / "corpus"))
    import check_corpus
    from chromium_page import browser_page

    corpus = check_corpus.default_corpus().resolve()
    if not corpus.is_dir():
        row("HTML report of the corpus run", "no corpus here", "-", None, "< 2 s", False)
        return
    table = check_corpus.load_table(check_corpus.TABLE)
    runs = [check_corpus.replay(case, corpus) for case in table.cases]
    documents = [json.loads(run.stdout) for run in runs if run.stdout.lstrip().startswith("{")]
    calls = sum(sum(document["summary"].values()) for document in documents)
    with tempfile.TemporaryDirectory() as folder:
        html = Path(folder) / "corpus.html"
        assert check_corpus.write_report(runs, html)
        opened = _open_ms(html)
        with browser_page() as page:
            page.open(html.as_uri())  # the summary view holds the counts
            shown = int(page.evaluate(
                "document.querySelector('[data-count=\"replay-calls\"]').textContent"))
    small = _small_page_ms()
    row("HTML report of the corpus run opened in Chromium",
        f"{opened:.0f} ms, {len(documents)} replays, {shown} of {calls} calls counted",
        f"100 calls {small:.0f} ms", opened / small, "< 2 s, counts equal",
        opened < 2000 and shown == calls)


def _small_page_ms() -> float:
    from report_data import replay_document, write_json

    agentforge = str(Path(sys.executable).parent / "agentforge")
    with tempfile.TemporaryDirectory() as folder:
        given = write_json(Path(folder) / "100.json", replay_document(100))
        html = Path(folder) / "100.html"
        subprocess.run([agentforge, "report", str(given), "-o", str(html)], check=True,
                       capture_output=True, cwd=ROOT)
        return _open_ms(html)
