"""Fuzz the argument pipeline: N mutated argument strings through one ``ToolService`` and
through one ``agentforge replay --json`` process; print the count per outcome.

A *crash* is anything but a result: an exception escaping ``ToolService.execute``, or a
replay process that exits with a code other than 0/1, prints a traceback, or reports a
different number of calls than it was given. The run fails (exit 1) on any crash.

    python benchmarks/fuzz.py [N] [--seed S]        (make fuzz: N = 100 000)
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools  # noqa: E402
from sample_tools import crm, shop, weather  # noqa: E402

SEEDS = [
    ("queryCustomer", '{"name":"长路","limit":5}'),
    ("getWeather", '{"city":"北京"}'),
    ("getPrice", '{"sku":"TEA-001","quantity":"3","discount":"0.1"}'),
    ("placeOrder", json.dumps({
        "customer": "ann", "items": [{"sku": "SNK-001", "qty": 1, "unit_price": 2.5}],
        "ship_to": {"street": "1 Main St", "city": "杭州", "postcode": "310000"},
        "priority": "high", "placed_at": "2026-11-29T10:00:00", "tags": ["gift"]})),
    ("quote_shipping", '{"parcel":[10,20,30,1.5],"destination":[30.2,120.1],"express":true}'),
    ("findProducts", '{"query":"tea","limit":5}'),
    ("scheduleDelivery", '{"order_id":"6f1e3c2a-1d2b-4c3d-9e8f-0a1b2c3d4e5f","day":"2026-12-01"}'),
    ("check_stock", '{"skus":["TEA-001","SNK-001"]}'),
    ("restock", '{"levels":{"TEA-001":5},"note":null}'),
    ("syncInventory", '{"api_token":"wh-secret","warehouse_id":3}'),
]

FRAGMENTS = ['"', "'", "\\", ",", "}", "]", "{", "[", ":", "null", "true", "1e999", "-0",
             "NaN", "Infinity", "\\ud800", "\x00", "\n", "9" * 5000, "[" * 3000, "长路",
             '"\\"', ",}", "0.1", "  ", "\ufeff", "\\u0000", '{"a":', "1_000", "５"]


def mutate(rng: random.Random, text: str) -> str:
    """Apply one to four random edits to an argument string."""
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(9)
        position = rng.randint(0, len(text))
        if choice == 0 and text:  # delete a span
            end = min(len(text), position + rng.randint(1, 8))
            text = text[:position] + text[end:]
        elif choice == 1:  # insert a fragment
            text = text[:position] + rng.choice(FRAGMENTS) + text[position:]
        elif choice == 2:  # encode the whole thing again
            text = json.dumps(text)
        elif choice == 3:  # trailing comma before a closing bracket
            text = text.replace("}", ",}", 1) if rng.random() < 0.5 else text + ","
        elif choice == 4 and text:  # replace a character
            text = text[:position] + chr(rng.randrange(0x20, 0x3000)) + text[position + 1:]
        elif choice == 5:  # duplicate the object
            text = text + text
        elif choice == 6:  # swap a value's JSON type
            text = text.replace('"', "", 2) if rng.random() < 0.5 else text.replace(
                ":", ':"', 1)
        elif choice == 7:  # nest deeply
            depth = rng.choice([10, 200, 5000])
            text = "[" * depth + text + "]" * depth
        else:  # truncate
            text = text[:position]
    return text


def _service() -> ToolService:
    service = ToolService()
    service.tools(build_local_tools([crm.CrmTools(), weather, shop.ShopTools()]))
    return service


def fuzz_library(cases: list[tuple[str, str]]) -> collections.Counter:
    service = _service()
    outcomes: collections.Counter = collections.Counter()
    for name, arguments in cases:
        try:
            result = service.execute(ToolExecutionRequest(id="f", name=name,
                                                          arguments=arguments))
        except Exception as exc:  # anything escaping the service is a crash
            outcomes[f"CRASH {type(exc).__name__}"] += 1
            continue
        outcomes["error result" if result.is_error else "success"] += 1
    return outcomes


def fuzz_replay(cases: list[tuple[str, str]]) -> collections.Counter:
    agentforge = str(Path(sys.executable).parent / "agentforge")
    outcomes: collections.Counter = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.jsonl"
        with path.open("w", encoding="utf-8", errors="surrogatepass") as out:
            for index, (name, arguments) in enumerate(cases):
                out.write(json.dumps({"type": "tool_call", "id": f"call_{index}", "name": name,
                                      "arguments": arguments}) + "\n")
        targets = ["-t", "sample_tools.crm:CrmTools", "-t", "sample_tools.weather",
                   "-t", "sample_tools.shop:ShopTools"]
        done = subprocess.run([agentforge, "replay", str(path), *targets, "--json"],
                              cwd=ROOT, capture_output=True, text=True, errors="replace",
                              env={**os.environ, "NO_COLOR": "1"})
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:
        outcomes[f"CRASH replay exit {done.returncode}: {done.stderr[-300:]}"] += 1
        return outcomes
    report = json.loads(done.stdout)
    for status, count in report["summary"].items():
        outcomes[f"replay {status}"] += count
    if sum(report["summary"].values()) != len(cases):
        outcomes["CRASH replay lost calls"] += 1
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--no-replay", action="store_true")
    options = parser.parse_args()
    rng = random.Random(options.seed)
    cases = [(name, mutate(rng, text)) for name, text in
             (rng.choice(SEEDS) for _ in range(options.n))]
    started = time.perf_counter()
    outcomes = fuzz_library(cases)
    print(f"library: {options.n:,} calls in {time.perf_counter() - started:.1f} s")
    if not options.no_replay:
        started = time.perf_counter()
        outcomes += fuzz_replay(cases)
        print(f"replay:  {options.n:,} calls in {time.perf_counter() - started:.1f} s")
    for outcome, count in sorted(outcomes.items()):
        print(f"  {outcome:<40} {count:>8,}")
    crashes = sum(c for o, c in outcomes.items() if o.startswith("CRASH"))
    print(f"crashes: {crashes}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
