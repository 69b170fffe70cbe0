"""agentforge benchmarks: every row is a ratio against a baseline measured in the same run.

Run with ``make bench``. Each row prints the figure, the baseline measured beside it, the
ratio and the target. Timings take the best of several repeats (the least disturbed run).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from workloads import (  # noqa: E402
    async_service,
    generated_tools_module,
    six_param_pydantic,
    six_param_service,
    two_param_floor,
    two_param_service,
)

ROWS: list[tuple[str, str, str, str, str]] = []


def per_call(func: Callable[[], object], number: int, repeat: int = 7) -> float:
    """Best seconds per call of ``func`` over ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(func, number=number, repeat=repeat)) / number


def per_call_alternately(first: Callable[[], object], second: Callable[[], object],
                         number: int, repeat: int = 9) -> tuple[float, float]:
    """:func:`per_call` of two functions, their runs taken in turn, so that a busy moment
    of the machine slows both rather than one."""
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for index, func in enumerate((first, second)):
            best[index] = min(best[index], timeit.timeit(func, number=number) / number)
    return best[0], best[1]


def row(measure: str, figure: str, baseline: str, ratio: float | None, target: str,
        ok: bool) -> None:
    ratio_text = f"{ratio:.2f}x" if ratio is not None else "-"
    ROWS.append((measure, figure, baseline, ratio_text, f"{target} {'ok' if ok else 'MISSED'}"))
    print(f"  {measure}: {figure} vs {baseline} -> {ratio_text} ({target})", file=sys.stderr)


def bench_two_param() -> None:
    floor = two_param_floor()
    ours = two_param_service()
    number = 200_000
    for _ in range(2):  # warm up both
        per_call(floor, number // 10, 1)
        per_call(ours, number // 10, 1)
    f, o = per_call(floor, number), per_call(ours, number)
    row("execute, 2-param sync tool", f"{o * 1e9:.0f} ns", f"floor {f * 1e9:.0f} ns",
        o / f, "<= 1.0x", o / f <= 1.0)
    a = per_call(async_service(), number // 2)
    row("execute, 2-param async tool", f"{a * 1e9:.0f} ns", f"floor {f * 1e9:.0f} ns",
        a / f, "<= 2.0x", a / f <= 2.0)


def bench_recording() -> None:
    plain = two_param_service()
    number = 100_000
    with tempfile.TemporaryDirectory() as folder:
        recorded = two_param_service(record=Path(folder) / "calls.jsonl")
        for _ in range(2):  # warm up both
            per_call(plain, number // 10, 1)
            per_call(recorded, number // 10, 1)
        p, r = per_call_alternately(plain, recorded, number)
    row("execute, recording every call to a file", f"{r * 1e9:.0f} ns",
        f"not recording {p * 1e9:.0f} ns", r / p, "<= 2.0x", r / p <= 2.0)


def bench_six_param() -> None:
    pyd = six_param_pydantic()
    ours = six_param_service()
    number = 50_000
    p, o = per_call(pyd, number), per_call(ours, number)
    row("execute, 6-param tool", f"{o * 1e6:.2f} us", f"pydantic validate_call {p * 1e6:.2f} us",
        o / p, "< 1.0x", o / p < 1.0)


def _import_microseconds(code: str, prefix: str, runs: int = 9) -> int:
    """Best total self+children time ``python -X importtime`` reports for the top-level
    imports whose name starts with ``prefix`` (empty: every top-level import)."""
    best = None
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                             capture_output=True, text=True, check=True, cwd=ROOT)
        total = 0
        for line in out.stderr.splitlines():
            if not line.startswith("import time:") or "cumulative" in line:
                continue
            _, cumulative, name = line[len("import time:"):].split("|")
            if not name.startswith(" ") or name.startswith("  "):
                continue  # only top-level imports: nested ones are inside their parents
            if name.strip().startswith(prefix):
                total += int(cumulative)
        best = total if best is None else min(best, total)
    return best


def bench_import() -> None:
    ours = _import_microseconds("from agentforge_cli import tool, P", "agentforge_cli")
    bare = _import_microseconds("pass", "")
    row("import tool, P (python -X importtime)", f"{ours / 1000:.2f} ms of imports",
        f"bare interpreter {bare / 1000:.2f} ms of imports", None, "<= 5 ms beyond bare",
        ours / 1000 <= 5.0)


def _command_seconds(*argvs: list[str], runs: int = 11) -> list[float]:
    """The best wall time of each command, run alternately so that a busy moment of the
    machine slows both sides alike."""
    best = [float("inf")] * len(argvs)
    env = {**os.environ, "NO_COLOR": "1"}
    for _ in range(runs):
        for index, argv in enumerate(argvs):
            started = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True, cwd=ROOT, env=env)
            best[index] = min(best[index], time.perf_counter() - started)
    return best


def bench_cli() -> None:
    agentforge = str(Path(sys.executable).parent / "agentforge")
    # An installed package is byte-compiled by pip, as typer and rich are; the editable
    # checkout may not be (PYTHONDONTWRITEBYTECODE): compile it so both sides load bytecode.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "agentforge_cli")],
                   check=True, capture_output=True)
    ours, base = _command_seconds(
        [agentforge, "tools", "list", "sample_tools.crm:CrmTools", "--format", "json"],
        [sys.executable, "-c", "import typer, rich.console"])
    row("CLI tools list --format json (cold)", f"{ours * 1000:.0f} ms",
        f"import typer, rich.console {base * 1000:.0f} ms", ours / base, "<= 1.5x",
        ours / base <= 1.5)


def bench_mcp_client() -> None:
    from mcp_client_workload import mcp_client_row

    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "agentforge_cli")],
                   check=True, capture_output=True)
    mcp_client_row(row, _command_seconds)


def bench_specs() -> None:
    """5 000 tools against 20 000, each the best of several builds (one build of 1 000
    tools takes a tenth of a second: too short to compare reliably)."""
    from agentforge_cli import build_local_tools

    timings = {}
    with tempfile.TemporaryDirectory() as tmp:
        for count, repeat in ((5_000, 3), (20_000, 2)):
            module = generated_tools_module(Path(tmp), count)
            best = float("inf")
            for _ in range(repeat):
                started = time.perf_counter()
                table = build_local_tools([module])
                best = min(best, time.perf_counter() - started)
                assert len(table) == count
            timings[count] = best
    per_tool = {n: t / n * 1e6 for n, t in timings.items()}
    linear = per_tool[20_000] / per_tool[5_000]
    row("build specs, 5 000 tools", f"{timings[5_000]:.2f} s",
        f"20 000: {timings[20_000]:.2f} s", linear,
        "<= 1 s, per-tool ratio 20k/5k < 1.5 (linear)", timings[5_000] <= 1.0 and linear < 1.5)


def bench_replay() -> None:
    from replay_workload import replay_row

    replay_row(row)


def bench_floor() -> None:
    from replay_workload import floor_row

    floor_row(row)


def bench_trace() -> None:
    from replay_workload import trace_row

    trace_row(row)


def bench_document() -> None:
    from replay_workload import document_rows

    document_rows(row)


def bench_cassette() -> None:
    from replay_workload import cassette_row

    cassette_row(row)


def bench_folder() -> None:
    from replay_workload import folder_row

    folder_row(row)


def bench_pytest_replay() -> None:
    from replay_workload import pytest_row

    pytest_row(row)


def bench_serve() -> None:
    from serve_workload import serve_rows

    serve_rows(row)


def bench_plain_http() -> None:
    from plain_http_workload import plain_http_row

    plain_http_row(row)


def bench_demo() -> None:
    from demo_workload import demo_row

    demo_row(row)


def bench_fuzz() -> None:
    """``tools fuzz`` throughput on a 2-param tool, against hypothesis generating the same
    inputs without calling anything (the floor the calls and classification add to)."""
    from hypothesis import HealthCheck, Phase, given, seed, settings
    from workloads import query_customer

    from agentforge_cli import ToolService, build_local_tools, tool
    from agentforge_cli.fuzz.engine import FuzzOptions, fuzz_tool
    from agentforge_cli.fuzz.strategies import arguments

    examples = 1_000
    service = ToolService().tools(build_local_tools(
        [tool(name="queryCustomer")(query_customer)], propagate_execution_errors=True,
        timeout=5))
    spec = service.specifications[0]

    @settings(max_examples=examples, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @seed(0)
    @given(arguments(spec.parameters))
    def generate_only(case: object) -> None:
        pass

    started = time.perf_counter()
    generate_only()
    floor = examples / (time.perf_counter() - started)
    started = time.perf_counter()
    report = fuzz_tool(service, spec, FuzzOptions(examples=examples, seed=0), ["bench"])
    ours = report.examples / (time.perf_counter() - started)
    row("tools fuzz, 2-param tool", f"{ours:.0f} examples/s",
        f"generation alone {floor:.0f} examples/s", floor / ours, ">= 500 examples/s",
        ours >= 500)


def bench_eval() -> None:
    from eval_workload import eval_overhead_row

    eval_overhead_row(row)


def bench_report() -> None:
    from report_workload import report_row

    report_row(row)


def bench_corpus_report() -> None:
    from report_workload import corpus_report_row

    corpus_report_row(row)


def main() -> int:
    print("agentforge benchmarks (each row measured against its baseline in this run)",
          file=sys.stderr)
    for bench in (bench_two_param, bench_recording, bench_six_param, bench_import, bench_cli,
                  bench_mcp_client,
                  bench_specs, bench_replay, bench_floor, bench_trace, bench_document,
                  bench_cassette, bench_folder, bench_pytest_replay, bench_fuzz, bench_serve,
                  bench_plain_http, bench_eval, bench_report, bench_corpus_report,
                  bench_demo):
        try:
            bench()
        except Exception as exc:  # a row that cannot run is reported, not hidden
            row(bench.__name__, f"could not run: {exc}", "-", None, "-", False)
    widths = [max(len(r[i]) for r in [*ROWS, HEADER]) for i in range(5)]
    for line in (HEADER, tuple("-" * w for w in widths), *ROWS):
        print(" | ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)))
    return 0 if all(r[4].endswith("ok") for r in ROWS) else 1


HEADER = ("measure", "figure", "baseline", "ratio", "target")

if __name__ == "__main__":
    sys.exit(main())
