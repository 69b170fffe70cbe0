"""``benchmarks/soak.py`` (``make soak``) with a handful of calls, so that the script itself
cannot rot: it starts its servers, passes, prints its report and exits 0; and its verdict
fails a run with an unanswered request, a wrong answer or memory that grew."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[4]
SOAK = ROOT / "benchmarks" / "soak.py"


def run_soak(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SOAK), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=240)


def test_a_small_soak_passes_and_reports_both_transports() -> None:
    done = run_soak("--stdio", "100", "--http", "40")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "soak: passed"
    assert any(line.startswith("stdio: 100 calls in ") and "0 unanswered, 0 wrong" in line
               for line in lines), done.stdout
    assert any(line.startswith("http: 40 calls in ") and "0 unanswered, 0 wrong" in line
               for line in lines), done.stdout
    assert "not JSON 1" in done.stdout and "sessions abandoned 4" in done.stdout
    assert "client gone mid-call: the server exited 0" in done.stdout
    assert sum("server RSS: first quarter" in line for line in lines) == 2


def test_bad_counts_are_a_usage_error() -> None:
    done = run_soak("--http", "0")
    assert done.returncode == 2
    assert "the counts must be positive" in done.stderr


def _soak_module(monkeypatch: pytest.MonkeyPatch) -> Any:
    spec = importlib.util.spec_from_file_location("soak_script", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "soak_script", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_the_verdict_fails_unanswered_wrong_and_growing_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    soak = _soak_module(monkeypatch)
    mib = 1024 * 1024
    flat = soak.Outcome("flat", calls=10, answered=10, rss=[80 * mib] * 8 + [82 * mib] * 4)
    flat.check()
    assert flat.failures == []
    bad = soak.Outcome("bad", calls=10, answered=9, wrong=["{}"],
                       rss=[80 * mib] * 4 + [90 * mib] * 4 + [100 * mib] * 4)
    bad.check()
    assert bad.failures == ["1 well-behaved requests got no answer",
                            "1 wrong answers, the first: {}",
                            "RSS grew from 80.0 MiB to 100.0 MiB"]
    assert "  FAILED: RSS grew from 80.0 MiB to 100.0 MiB" in bad.report()
