"""What the HTML report's tests share: the data a page embeds, read back, and a replay
``--json`` document of any size written without replaying (the page only reads it)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_DATA = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def embedded(page: str) -> Any:
    """The JSON the page embeds (the one ``<script type="application/json">``)."""
    found = _DATA.findall(page)
    assert len(found) == 1, "the data element must be one, and end where it should"
    return json.loads(found[0])


def replay_document(calls: int, *, transcript: str = "big.jsonl") -> dict[str, Any]:
    """A replay ``--json`` document of ``calls`` calls: every 10th mismatched, every 25th
    drifted, every 50th unrecorded, the rest matched; two tools taking turns."""
    entries = []
    summary = {"matched": 0, "mismatched": 0, "unrecorded": 0, "drifted": 0}
    for index in range(calls):
        status = ("unrecorded" if index % 50 == 49 else "drifted" if index % 25 == 24
                  else "mismatched" if index % 10 == 9 else "matched")
        summary[status] += 1
        name = "queryCustomer" if index % 2 else "getOrder"
        result = json.dumps({"id": index, "name": f"customer {index}", "items": [1, 2, 3]})
        today = (json.dumps({"id": index, "name": f"customer {index}!", "items": [1, 2]})
                 if status == "mismatched" else None if status == "drifted" else result)
        entries.append({
            "id": f"call_{index}", "name": name, "status": status,
            "expected": None if status == "unrecorded" else result, "actual": today,
            "expected_is_error": None if status == "unrecorded" else False,
            "is_error": None if status == "drifted" else False,
            "arguments": json.dumps({"customer" if status == "drifted" else "name": "x",
                                     "limit": index}),
            "where": f"line {index + 2}", "duration_ms": 0.01,
            **({"drift": '"customer" was recorded but the tool has no such parameter'}
               if status == "drifted" else {})})
    return {"summary": summary, "calls": entries, "transcript": transcript,
            "format": "agentforge", "match": "exact"}


def write_json(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path
