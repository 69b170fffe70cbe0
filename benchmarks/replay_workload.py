"""The replay row: a 1 000 000-call JSONL transcript through ``agentforge replay --json``."""

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


def replay_row(row) -> None:
    agentforge = str(Path(sys.executable).parent / "agentforge")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.jsonl"
        _write_transcript(path, CALLS)
        started = time.perf_counter()
        process = subprocess.Popen(
            [agentforge, "replay", str(path), "-t", "sample_tools.crm:CrmTools", "--json"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "NO_COLOR": "1"})
        peak_mb = _peak_rss_mb(process)
        elapsed = time.perf_counter() - started
        stderr = process.stderr.read()
        process.stderr.close()
    if process.returncode != 0:
        raise RuntimeError(f"replay exited {process.returncode}: {stderr[-300:]}")
    rate = CALLS / elapsed
    library = _library_rate(CALLS)
    row(f"replay --json, {CALLS:,} calls", f"{rate:,.0f} calls/s, peak RSS {peak_mb:.0f} MB",
        f"library {library:,.0f} calls/s", rate / library, "streamed: peak RSS <= 150 MB",
        0 < peak_mb <= 150)
