"""The floor of the ``replay --json`` row: the plain Python loop a replay could be.

Run as a whole process, as the command is: it imports the library, reads an agentforge
JSONL transcript line by line, ``json.loads`` each line, calls each recorded call through
``ToolService.execute``, compares the result with the recorded one and writes one
``json.dumps`` entry per call to standard output::

    python benchmarks/replay_floor.py TRANSCRIPT.jsonl > entries.jsonl

Nothing is checked that a replay checks (ids, masking, drift, formats): it is the cost
of the work itself, written the straightforward way.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # sample_tools


def main(path: str) -> int:
    from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools
    from sample_tools.crm import CrmTools

    service = ToolService().tools(build_local_tools([CrmTools()]))
    write = sys.stdout.write
    waiting: dict[str | None, dict] = {}
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            record = json.loads(line)
            kind = record.get("type")
            if kind == "tool_call":
                started = time.perf_counter()
                result = service.execute(ToolExecutionRequest(
                    id=record.get("id"), name=record["name"], arguments=record["arguments"]))
                elapsed = (time.perf_counter() - started) * 1000
                waiting[record.get("id")] = {
                    "id": record.get("id"), "name": record["name"], "status": "unrecorded",
                    "expected": None, "actual": result.text, "expected_is_error": None,
                    "is_error": result.is_error, "arguments": record["arguments"],
                    "where": f"line {number}", "duration_ms": round(elapsed, 3)}
            elif kind == "tool_result":
                entry = waiting.pop(record.get("id"))
                entry["expected"] = record["content"]
                entry["expected_is_error"] = record.get("is_error")
                same = entry["expected"] == entry["actual"] and entry["expected_is_error"] in (
                    None, entry["is_error"])
                entry["status"] = "matched" if same else "mismatched"
                write(json.dumps(entry) + "\n")
    for entry in waiting.values():
        write(json.dumps(entry) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
