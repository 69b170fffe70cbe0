"""The replay rows: a 1 000 000-call JSONL transcript through ``agentforge replay --json``
against the library on the same calls, the human trace against ``--json`` on 20 000
calls, and the peak memory of a 1 000 000-call OpenAI chat JSON document."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CALLS = int(os.environ.get("AGENTFORGE_BENCH_REPLAY_CALLS", "1000000"))
TRACE_CALLS = 20_000


def _write_transcript(path: Path, calls: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"type": "user", "content": "查一下客户"}, ensure_ascii=False) + "\n")
        for i in range(calls):
            arguments = json.dumps({"name": "长路", "limit": i % 100}, ensure_ascii=False)
            out.write(json.dumps({"type": "tool_call", "id": f"call_{i}",
                                  "name": "queryCustomer", "arguments": arguments},
                                 ensure_ascii=False) + "\n")
            out.write(json.dumps({"type": "tool_result", "id": f"call_{i}",
                                  "content": f"customer:长路,limit:{i % 100}",
                                  "is_error": False}, ensure_ascii=False) + "\n")


def _library_rate(calls: int) -> float:
    sys.path.insert(0, str(ROOT))
    from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools
    from sample_tools.crm import CrmTools

    service = ToolService()
    service.tools(build_local_tools([CrmTools()]))
    requests = [ToolExecutionRequest(id=f"call_{i}", name="queryCustomer",
                                     arguments=json.dumps({"name": "长路", "limit": i % 100},
                                                          ensure_ascii=False))
                for i in range(min(calls, 200_000))]
    started = time.perf_counter()
    for request in requests:
        service.execute(request)
    return len(requests) / (time.perf_counter() - started)


def _peak_rss_mb(process: subprocess.Popen) -> float:
    """Poll the child's ``VmHWM`` (its peak resident set) until it exits."""
    peak_kb = 0
    status = Path(f"/proc/{process.pid}/status")
    while process.poll() is None:
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak_kb = max(peak_kb, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    return peak_kb / 1024


def _write_openai_document(path: Path, calls: int) -> None:
    """One JSON array of OpenAI chat messages: a user message, then a call and its result
    per call."""
    with path.open("w", encoding="utf-8") as out:
        out.write("[\n" + json.dumps({"role": "user", "content": "查一下客户"},
                                     ensure_ascii=False))
        for i in range(calls):
            arguments = json.dumps({"name": "长路", "limit": i % 100}, ensure_ascii=False)
            call = {"id": f"call_{i}", "type": "function",
                    "function": {"name": "queryCustomer", "arguments": arguments}}
            out.write(",\n" + json.dumps({"role": "assistant", "content": None,
                                          "tool_calls": [call]}, ensure_ascii=False))
            out.write(",\n" + json.dumps({"role": "tool", "tool_call_id": f"call_{i}",
                                          "content": f"customer:长路,limit:{i % 100}"},
                                         ensure_ascii=False))
        out.write("\n]\n")


def _replay(path: Path, *options: str) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of ``agentforge replay`` on ``path``, stdout to a file."""
    agentforge = str(Path(sys.executable).parent / "agentforge")
    with tempfile.TemporaryFile("w+") as stdout:
        started = time.perf_counter()
        process = subprocess.Popen(
            [agentforge, "replay", str(path), "-t", "sample_tools.crm:CrmTools", *options],
            cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "NO_COLOR": "1"})
        peak_mb = _peak_rss_mb(process)
        elapsed = time.perf_counter() - started
        stderr = process.stderr.read()
        process.stderr.close()
    if process.returncode != 0:
        raise RuntimeError(f"replay exited {process.returncode}: {stderr[-300:]}")
    return elapsed, peak_mb


def replay_row(row) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.jsonl"
        _write_transcript(path, CALLS)
        elapsed, peak_mb = _replay(path, "--json")
    rate = CALLS / elapsed
    library = _library_rate(CALLS)
    row(f"replay --json, {CALLS:,} calls", f"{rate:,.0f} calls/s, peak RSS {peak_mb:.0f} MB",
        f"library {library:,.0f} calls/s", rate / library,
        ">= 0.25x, peak RSS <= 150 MB", rate / library >= 0.25 and 0 < peak_mb <= 150)


def trace_row(row) -> None:
    """The human trace and ``--json`` on the same file, each the best of three runs."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.jsonl"
        _write_transcript(path, TRACE_CALLS)
        trace = json_ = float("inf")
        for _ in range(3):
            trace = min(trace, _replay(path)[0])
            json_ = min(json_, _replay(path, "--json")[0])
    ratio = json_ / trace  # the trace's rate over --json's
    row(f"replay trace, {TRACE_CALLS:,} calls, stdout to a file",
        f"{TRACE_CALLS / trace:,.0f} calls/s", f"--json {TRACE_CALLS / json_:,.0f} calls/s",
        ratio, ">= 0.5x", ratio >= 0.5)


def document_row(row) -> None:
    """A whole-file OpenAI chat JSON array is streamed: memory does not grow with it."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.json"
        _write_openai_document(path, CALLS)
        size_mb = path.stat().st_size / 1e6
        elapsed, peak_mb = _replay(path, "--json")
    row(f"replay --json, {CALLS:,}-call OpenAI chat JSON array",
        f"peak RSS {peak_mb:.0f} MB, {CALLS / elapsed:,.0f} calls/s",
        f"the file: {size_mb:,.0f} MB", None, "peak RSS <= 150 MB", 0 < peak_mb <= 150)
