"""The replay rows: a 1 000 000-call JSONL transcript through ``agentforge replay --json``
against the library on the same calls; ``replay --json`` of a 200 000-call transcript
against the floor, a plain Python loop doing the same work (:mod:`replay_floor`), both
run as whole processes; the human trace against ``--json`` on 20 000
calls; the peak memory of each whole-file JSON format and of a VCR cassette, a short
file against one four to ten times as long; a folder of small transcripts against one
transcript of as many calls; and ``pytest --agentforge-replay`` on two workers against
one. The files come from :mod:`format_workload`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from format_workload import (
    DOCUMENTS,
    write_cassette,
    write_document,
    write_folder,
    write_jsonl,
    write_sleepy_tools,
)

ROOT = Path(__file__).resolve().parent.parent
CALLS = int(os.environ.get("AGENTFORGE_BENCH_REPLAY_CALLS", "1000000"))
TRACE_CALLS = 20_000


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
        write_jsonl(path, CALLS)
        elapsed, peak_mb = _replay(path, "--json")
    rate = CALLS / elapsed
    library = _library_rate(CALLS)
    # the rate is reported beside the library's; the speed target is the floor row's
    row(f"replay --json, {CALLS:,} calls", f"{rate:,.0f} calls/s, peak RSS {peak_mb:.0f} MB",
        f"library {library:,.0f} calls/s", rate / library,
        "peak RSS <= 150 MB", 0 < peak_mb <= 150)


FLOOR_CALLS = 200_000


def _best_seconds(argvs: list[list[str]], runs: int = 5) -> list[float]:
    """The best wall time of each command, stdout to a file, run alternately so that a
    busy moment of the machine slows every side alike."""
    best = [float("inf")] * len(argvs)
    env = {**os.environ, "NO_COLOR": "1"}
    for _ in range(runs):
        for index, argv in enumerate(argvs):
            with tempfile.TemporaryFile("w+b") as stdout:
                started = time.perf_counter()
                done = subprocess.run(argv, cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE,
                                      env=env)
                elapsed = time.perf_counter() - started
            if done.returncode != 0:
                raise RuntimeError(f"{argv[1]} exited {done.returncode}: "
                                   f"{done.stderr.decode(errors='replace')[-300:]}")
            best[index] = min(best[index], elapsed)
    return best


SCRUBBERS = ("--scrub", "timestamps", "--scrub", "uuids", "--scrub", "$..id")
"""Scrubbers on for the second ``replay --json`` of the floor row."""


def floor_row(row) -> None:
    """``agentforge replay --json`` of a 200 000-call transcript against the floor: the
    straightforward loop over the same file (``json.loads`` per line, the call through
    ``ToolService.execute``, the comparison, one ``json.dumps`` entry per call); then the
    same replay with scrubbers on (the results are the recorded ones: none is scrubbed,
    as none needs to be)."""
    agentforge = str(Path(sys.executable).parent / "agentforge")
    floor = str(Path(__file__).resolve().parent / "replay_floor.py")
    replay = [agentforge, "replay", "-t", "sample_tools.crm:CrmTools", "--json"]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "floor.jsonl"
        write_jsonl(path, FLOOR_CALLS)
        ours, plain, scrubbed = _best_seconds([
            [*replay, str(path)], [sys.executable, floor, str(path)],
            [*replay, str(path), *SCRUBBERS]])
    ratio = ours / plain
    row(f"replay --json, {FLOOR_CALLS:,} calls, against the floor", f"{ours:.2f} s",
        f"the plain Python loop {plain:.2f} s", ratio, "<= 1.0x", ratio <= 1.0)
    ratio = scrubbed / plain
    row(f"replay --json, {FLOOR_CALLS:,} calls, with 3 scrubbers, against the floor",
        f"{scrubbed:.2f} s", f"the plain Python loop {plain:.2f} s", ratio, "<= 1.0x",
        ratio <= 1.0)


def trace_row(row) -> None:
    """The human trace and ``--json`` on the same file, each the best of three runs."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.jsonl"
        write_jsonl(path, TRACE_CALLS)
        trace = json_ = float("inf")
        for _ in range(3):
            trace = min(trace, _replay(path)[0])
            json_ = min(json_, _replay(path, "--json")[0])
    ratio = json_ / trace  # the trace's rate over --json's
    row(f"replay trace, {TRACE_CALLS:,} calls, stdout to a file",
        f"{TRACE_CALLS / trace:,.0f} calls/s", f"--json {TRACE_CALLS / json_:,.0f} calls/s",
        ratio, ">= 0.5x", ratio >= 0.5)


DOCUMENT_CALLS = (15_000, 60_000)
"""The two lengths of each JSON document row: memory that grew per call would show."""
ISSUE_CALLS = 1_000_000
PAD_MB = 270
"""Long replies added to an OpenAI document: past the 256 MiB a file could be read whole
when one was, so the row shows no size cap is left."""


def _peaks(path: Path, write, sizes: tuple[int, ...]) -> tuple[list[float], float]:
    """Peak RSS (MB) of the human trace of the file ``write(path, size)`` writes, for each
    size, and the rate (per second) of the last. The trace, not ``--json``: its report
    keeps up to 8 MiB in memory before spilling to disk, which would look like growth."""
    peaks, rate = [], 0.0
    for size in sizes:
        write(path, size)
        elapsed, peak_mb = _replay(path)
        peaks.append(peak_mb)
        rate = size / elapsed
    return peaks, rate


def document_rows(row) -> None:
    """Each whole-file JSON format is streamed: peak RSS at ``DOCUMENT_CALLS[1]`` calls
    against ``DOCUMENT_CALLS[0]``, extrapolated linearly to 1 000 000 calls; and an OpenAI
    document larger than 256 MiB replayed with ``--json``."""
    small, large = DOCUMENT_CALLS
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "conversation.json"
        for name in DOCUMENTS:
            peaks, rate = _peaks(path, lambda p, n, name=name: write_document(p, name, n),
                                 DOCUMENT_CALLS)
            size_mb = path.stat().st_size / 2**20
            growth = (peaks[1] - peaks[0]) / (large - small)
            at_issue = peaks[1] + max(growth, 0) * (ISSUE_CALLS - large)
            ratio = peaks[1] / peaks[0]
            ok = 0 < peaks[1] <= 150 and ratio <= 1.05 and at_issue <= 150
            figure = (f"{large:,} calls ({size_mb:,.0f} MiB): peak RSS {peaks[1]:.0f} MB, "
                      f"{rate:,.0f} calls/s traced; {ISSUE_CALLS:,} calls: <= {at_issue:.0f} "
                      "MB extrapolated")
            if name == "OpenAI chat":
                write_document(path, name, large, PAD_MB)
                size_mb = path.stat().st_size / 2**20
                padded = _replay(path, "--json")[1]
                figure += (f"; {size_mb:,.0f} MiB with long replies, --json: peak RSS "
                           f"{padded:.0f} MB")
                ok = ok and 0 < padded <= 150
            row(f"replay, {name} JSON document, streamed", figure,
                f"{small:,} calls: peak RSS {peaks[0]:.0f} MB", ratio,
                "RSS ratio <= 1.05, <= 150 MB, no size cap", ok)


CASSETTE_INTERACTIONS = (1_000, 10_000)


def cassette_row(row) -> None:
    """A vcrpy YAML cassette is streamed: peak RSS at 10 000 interactions against 1 000."""
    with tempfile.TemporaryDirectory() as tmp:
        peaks, rate = _peaks(Path(tmp) / "cassette.yaml", write_cassette,
                             CASSETTE_INTERACTIONS)
    ratio = peaks[1] / peaks[0]
    row(f"replay, {CASSETTE_INTERACTIONS[1]:,}-interaction VCR cassette (YAML)",
        f"{rate:,.0f} interactions/s traced, peak RSS {peaks[1]:.0f} MB",
        f"{CASSETTE_INTERACTIONS[0]:,} interactions: peak RSS {peaks[0]:.0f} MB", ratio,
        "RSS ratio <= 1.1 (no growth)", peaks[1] > 0 and ratio <= 1.1)


FOLDER_FILES, FOLDER_CALLS = 1_000, 10


def folder_row(row) -> None:
    """A folder of 1 000 transcripts of 10 calls against one transcript of 10 000 calls,
    each the best of three runs, run alternately."""
    calls = FOLDER_FILES * FOLDER_CALLS
    with tempfile.TemporaryDirectory() as tmp:
        folder, single = Path(tmp) / "sessions", Path(tmp) / "one.jsonl"
        write_folder(folder, FOLDER_FILES, FOLDER_CALLS)
        write_jsonl(single, calls)
        many = one = float("inf")
        for _ in range(3):
            one = min(one, _replay(single, "--json")[0])
            many = min(many, _replay(folder, "--json")[0])
    ratio = many / one
    row(f"replay --json, a folder of {FOLDER_FILES:,} transcripts x {FOLDER_CALLS} calls",
        f"{many:.2f} s", f"one {calls:,}-call transcript: {one:.2f} s", ratio, "<= 1.5x",
        ratio <= 1.5)


PYTEST_TRANSCRIPTS, PYTEST_CALLS = 100, 100


def _pytest_seconds(folder: Path, workers: str, recordings: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(folder), "NO_COLOR": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode (and rewrites) cached
    env.pop("AGENTFORGE_TOOLS", None)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--agentforge-replay", recordings, "-n", workers],
                          cwd=folder, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"pytest -n {workers} exited {done.returncode}: "
                           f"{done.stdout[-300:]}")
    return elapsed


def pytest_row(row) -> None:
    """``pytest --agentforge-replay`` of 100 transcripts x 100 calls of a tool that sleeps
    1 ms: two xdist workers against none (after one warm-up run of each)."""
    calls = PYTEST_TRANSCRIPTS * PYTEST_CALLS
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        target = write_sleepy_tools(folder)
        (folder / "pytest.ini").write_text(f"[pytest]\nagentforge_tools = {target}\n",
                                           encoding="utf-8")
        recordings, warm = _mkdir(folder / "recordings"), _mkdir(folder / "warm")
        for index in range(PYTEST_TRANSCRIPTS):
            write_jsonl(recordings / f"session_{index:03d}.jsonl", PYTEST_CALLS,
                        first=index * PYTEST_CALLS)
        write_jsonl(warm / "one.jsonl", 2)
        for workers in ("0", "2"):
            _pytest_seconds(folder, workers, "warm")
        serial = _pytest_seconds(folder, "0", "recordings")
        parallel = _pytest_seconds(folder, "2", "recordings")
    speedup = serial / parallel
    row(f"pytest --agentforge-replay, {calls:,} calls of a 1 ms tool, -n 2",
        f"{parallel:.1f} s", f"-n 0: {serial:.1f} s", speedup, ">= 1.6x faster",
        speedup >= 1.6)


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path
