"""The corpus run (`make corpus`): replay every real recording and check it against the
table `tests/corpus/expected.toml`.

    python tests/corpus/check_corpus.py [CORPUS_DIR] [--table FILE] [--jobs N] [--html FILE]

For each file the table lists (a file may be listed again with other `options`), the
real command runs, `agentforge replay FILE -t TARGET ... --json`, with
`AGENTFORGE_CORPUS_CALLS` naming a fresh log of tool executions
(`tests/corpus/tools/execution_log.py`). A file passes when its exit code, its number of
calls and its verdicts are the table's, and each call ran exactly once (the executions
logged equal the calls, less the table's `unexecuted`). A file the table marks `unread`
passes while replay still refuses it with the stated exit code and message. A file the
table marks `defect` (replay reads it, but not yet right) passes while replay still gives
exactly the outcome written there (`found` calls, `executions`, its verdicts and exit
code), so that a fix, or a change for the worse, shows.

The corpus folder (default `$AGENTFORGE_CORPUS`, then `../shared/corpus` from the
repository root) must hold exactly the case folders the table lists and every file it
lists: a missing corpus, an unlisted case or recording, or a listed file that is missing
fails the run. One line per file and a summary go to stdout; exit 1 on any failure.
With `--html FILE`, every replay's `--json` document is also merged into one HTML page by
`agentforge report` (a file replay refused has no document and is not on it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parents[2]
TABLE = REPOSITORY / "tests" / "corpus" / "expected.toml"
AGENTFORGE = REPOSITORY / ".venv" / "bin" / "agentforge"
CORPUS_ENV = "AGENTFORGE_CORPUS"
CALLS_ENV = "AGENTFORGE_CORPUS_CALLS"
VERDICTS = ("matched", "mismatched", "unrecorded", "drifted")
TIMEOUT_SECONDS = 300

_REQUIRED = {"folder": str, "file": str, "targets": list, "calls": int, "exit": int}
_OPTIONAL = {"options": list, "unexecuted": int, "unread": str, "message": str,
             "defect": str, "found": int, "executions": int,
             **dict.fromkeys(VERDICTS, int)}


class TableError(Exception):
    """The table cannot be used: unreadable, or an entry is malformed."""


@dataclass(frozen=True)
class Case:
    """One recording file and what replaying it must give."""

    folder: str
    file: str
    targets: tuple[str, ...]
    calls: int
    exit: int
    options: tuple[str, ...] = ()
    verdicts: dict[str, int] = field(default_factory=dict)
    unexecuted: int = 0
    unread: str | None = None
    message: str | None = None
    defect: str | None = None
    found: int | None = None
    executions: int | None = None

    @property
    def name(self) -> str:
        return f"{self.folder}/{self.file}"

    @property
    def label(self) -> str:
        """The name, and the options when there are any: a file may be listed once per
        set of options (``--format tau2`` beside the auto-detected reading)."""
        return " ".join((self.name, *self.options))


@dataclass(frozen=True)
class Table:
    cases: tuple[Case, ...]
    support: tuple[str, ...] = ()


# ---------------------------------------------------------------- the table

def load_table(path: Path) -> Table:
    """Read and check the table; raise TableError naming the entry at fault."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TableError(f"cannot read {path}: {exc}") from exc
    unknown = set(document) - {"case", "support"}
    if unknown:
        raise TableError(f"{path}: unknown top-level keys {sorted(unknown)}")
    support = document.get("support", [])
    if not isinstance(support, list) or not all(isinstance(s, str) for s in support):
        raise TableError(f"{path}: support must be a list of folder paths")
    entries = document.get("case", [])
    if not isinstance(entries, list) or not entries:
        raise TableError(f"{path}: no [[case]] entries")
    cases = [parse_case(entry, number) for number, entry in enumerate(entries, 1)]
    seen: set[str] = set()
    for case in cases:
        if case.label in seen:
            raise TableError(f"{path}: {case.label} is listed twice")
        seen.add(case.label)
    return Table(tuple(cases), tuple(support))


def parse_case(entry: Any, number: int) -> Case:
    """One [[case]] entry, checked: known keys, right types, verdicts adding up."""
    where = f"case {number}"
    if not isinstance(entry, dict):
        raise TableError(f"{where}: not a table")
    if isinstance(entry.get("folder"), str) and isinstance(entry.get("file"), str):
        where = f"case {number} ({entry['folder']}/{entry['file']})"
    unknown = set(entry) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise TableError(f"{where}: unknown keys {sorted(unknown)}")
    for key, kind in {**_REQUIRED, **_OPTIONAL}.items():
        if key not in entry:
            if key in _REQUIRED:
                raise TableError(f"{where}: missing {key!r}")
            continue
        value = entry[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TableError(f"{where}: {key!r} must be a {kind.__name__}")
        if kind is int and value < 0:
            raise TableError(f"{where}: {key!r} must not be negative")
        if kind is list and not all(isinstance(item, str) for item in value):
            raise TableError(f"{where}: {key!r} must be a list of strings")
    if not entry["targets"]:
        raise TableError(f"{where}: no targets")
    if ("defect" in entry) != ("found" in entry) or (
            "executions" in entry and "defect" not in entry):
        raise TableError(f"{where}: a defect needs 'found' (the calls replay finds today); "
                         "'found' and 'executions' are for defects only")
    if "defect" in entry and "unread" in entry:
        raise TableError(f"{where}: a file is either unread or read with a defect")
    verdicts = {key: entry.get(key, 0) for key in VERDICTS}
    if "unread" in entry:
        if "message" not in entry:
            raise TableError(f"{where}: an unread file needs the expected 'message'")
        given = [key for key in VERDICTS if key in entry]
        if given:
            raise TableError(f"{where}: an unread file has no verdicts ({', '.join(given)})")
    else:
        if "message" in entry:
            raise TableError(f"{where}: 'message' is for unread files only")
        counted = entry["found"] if "defect" in entry else entry["calls"]
        if sum(verdicts.values()) != counted:
            raise TableError(f"{where}: the verdicts add up to {sum(verdicts.values())}, "
                             f"not to its {counted} calls")
    if entry.get("unexecuted", 0) > entry["calls"]:
        raise TableError(f"{where}: more unexecuted calls than calls")
    return Case(folder=entry["folder"], file=entry["file"], targets=tuple(entry["targets"]),
                calls=entry["calls"], exit=entry["exit"],
                options=tuple(entry.get("options", ())),
                verdicts={} if "unread" in entry else verdicts,
                unexecuted=entry.get("unexecuted", 0), unread=entry.get("unread"),
                message=entry.get("message"), defect=entry.get("defect"),
                found=entry.get("found"), executions=entry.get("executions"))


# ---------------------------------------------------------------- the corpus folder

def survey(corpus: Path, table: Table) -> list[str]:
    """What makes the run meaningless: a missing corpus, a case folder or recording the
    table does not list, a listed file that is missing."""
    if not corpus.is_dir():
        return [f"no corpus folder at {corpus}"]
    problems = []
    listed = {case.name for case in table.cases}
    folders = {case.folder for case in table.cases}
    present = sorted(entry.name for entry in corpus.iterdir() if entry.is_dir())
    for folder in present:
        if folder not in folders:
            problems.append(f"case folder {folder}/ is not in the table")
            continue
        for path in sorted((corpus / folder).rglob("*")):
            name = path.relative_to(corpus).as_posix()
            if path.is_file() and name not in listed and not _is_support(name, table):
                problems.append(f"{name} is not in the table")
    for case in table.cases:
        if not (corpus / case.folder / case.file).is_file():
            problems.append(f"{case.name} is listed but missing")
    return problems


def _is_support(name: str, table: Table) -> bool:
    return any(name.startswith(folder.rstrip("/") + "/") for folder in table.support)


# ---------------------------------------------------------------- one file

@dataclass(frozen=True)
class Run:
    """What one replay did: its exit code, its output and the executions it logged."""

    exit: int
    stdout: str
    stderr: str
    executions: tuple[dict[str, Any], ...]


def replay(case: Case, corpus: Path) -> Run:
    """Run the real command on one file, with a fresh execution log."""
    command = [str(AGENTFORGE), "replay", str(corpus / case.folder / case.file)]
    for target in case.targets:
        command += ["-t", target]
    command += [*case.options, "--json"]
    with tempfile.TemporaryDirectory(prefix="agentforge-corpus-") as scratch:
        log = Path(scratch) / "executions.jsonl"
        log.touch()
        environment = {**os.environ, CALLS_ENV: str(log), CORPUS_ENV: str(corpus),
                       "NO_COLOR": "1"}
        try:
            done = subprocess.run(command, cwd=REPOSITORY, env=environment,
                                  capture_output=True, text=True, encoding="utf-8",
                                  errors="replace", timeout=TIMEOUT_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            return Run(-1, "", f"timed out after {TIMEOUT_SECONDS} s", ())
        return Run(done.returncode, done.stdout, done.stderr, read_executions(log))


def read_executions(log: Path) -> tuple[dict[str, Any], ...]:
    lines = log.read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


def judge(case: Case, run: Run) -> tuple[bool, str]:
    """``(passed, what to print after the file's name)``."""
    if case.unread is not None:
        return _judge_unread(case, run)
    problems = []
    if run.exit != case.exit:
        problems.append(f"exit {run.exit}, expected {case.exit}"
                        + (f" ({first_line(run.stderr)})" if first_line(run.stderr) else ""))
    try:
        calls = json.loads(run.stdout)["calls"]
    except (ValueError, KeyError, TypeError):
        problems.append("no JSON report on stdout")
        return False, "; ".join(problems)
    if case.defect is not None:
        return _judge_defect(case, run, calls, problems)
    if len(calls) != case.calls:
        problems.append(f"{plural(len(calls), 'call')} found, the recording holds {case.calls}")
    problems += execution_problems(case.calls, run.executions, case.unexecuted)
    found = Counter(call.get("status") for call in calls)
    for verdict in sorted(set(found) | set(case.verdicts), key=_verdict_order):
        if found.get(verdict, 0) != case.verdicts.get(verdict, 0):
            problems.append(f"{found.get(verdict, 0)} {verdict}, expected "
                            f"{case.verdicts.get(verdict, 0)}")
    if problems:
        return False, "; ".join(problems)
    return True, f"{plural(len(calls), 'call')}: {describe_verdicts(found)}"


def _judge_defect(case: Case, run: Run, calls: list[Any], problems: list[str]
                  ) -> tuple[bool, str]:
    """A known defect: the outcome must be the one the table wrote down, no better (then
    the entry is to be made a plain one) and no worse."""
    found = Counter(call.get("status") for call in calls)
    executions = case.executions if case.executions is not None else (
        (case.found or 0) - case.unexecuted)
    outcome = (len(calls), len(run.executions), {k: v for k, v in found.items() if v})
    expected = (case.found, executions, {k: v for k, v in case.verdicts.items() if v})
    if outcome != expected:
        problems.append(f"the known defect changed: {plural(len(calls), 'call')} found, "
                        f"{plural(len(run.executions), 'execution')}, "
                        f"{describe_verdicts(found)}; the table says {case.found} found, "
                        f"{executions} executions, {describe_verdicts(Counter(expected[2]))} "
                        f"(the recording holds {case.calls})")
    if problems:
        return False, "; ".join(problems)
    return True, (f"known defect, {plural(len(calls), 'call')} of {case.calls}: "
                  f"{case.defect}")


def _judge_unread(case: Case, run: Run) -> tuple[bool, str]:
    if run.exit == case.exit and case.message and case.message in run.stderr:
        return True, f"unread: {case.unread}"
    if run.exit in (0, 1) and run.stdout.strip():
        return False, (f"is read now (exit {run.exit}): give it verdicts in the table; "
                       f"the recording holds {plural(case.calls, 'call')}")
    return False, (f"exit {run.exit}, expected {case.exit} with {case.message!r}: "
                   f"{first_line(run.stderr) or 'no message'}")


def execution_problems(calls: int, executions: tuple[dict[str, Any], ...],
                       unexecuted: int = 0) -> list[str]:
    """Each of the recording's calls must run exactly once (less those that never reach a
    tool): on a difference, name the tool and arguments that ran more than once."""
    if len(executions) == calls - unexecuted:
        return []
    summary = (f"{plural(len(executions), 'tool execution')} for {plural(calls, 'call')}"
               + (f" ({unexecuted} never reach a tool)" if unexecuted else ""))
    runs = Counter((str(execution.get("tool")), _canonical(execution.get("arguments")))
                   for execution in executions)
    repeated = [f"{tool} {_clip(arguments)} ({count} times)"
                for (tool, arguments), count in runs.items() if count > 1]
    if len(executions) > calls - unexecuted and repeated:
        summary += "; run more than once: " + ", ".join(repeated)
    return [summary]


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _canonical(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


def _clip(text: str, width: int = 120) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _verdict_order(verdict: Any) -> tuple[int, str]:
    return (VERDICTS.index(verdict) if verdict in VERDICTS else len(VERDICTS), str(verdict))


def describe_verdicts(found: Counter) -> str:
    shown = [f"{found[v]} {v}" for v in sorted(found, key=_verdict_order) if found[v]]
    return ", ".join(shown) or "none"


def first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return _clip(lines[0].strip(), 200) if lines else ""


# ---------------------------------------------------------------- the run

def check(corpus: Path, table: Table, jobs: int, html: Path | None = None) -> int:
    """Replay every case, print one line each and a summary; 0 when all passed."""
    problems = survey(corpus, table)
    if problems:
        for problem in problems:
            print(f"FAIL  corpus: {problem}")
        print(f"corpus: not run, {len(problems)} problem(s) with {corpus}")
        return 1
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        runs = list(pool.map(lambda case: replay(case, corpus), table.cases))
        failed = 0
        for case, run in zip(table.cases, runs, strict=True):
            passed, text = judge(case, run)
            failed += not passed
            print(f"{'ok  ' if passed else 'FAIL'}  {case.label}: {text}", flush=True)
    if html is not None:
        failed += not write_report(runs, html)
    total = len(table.cases)
    print(f"corpus: {total - failed} of {total} files ok"
          + (f", {failed} failed" if failed else ""))
    return 1 if failed else 0


def write_report(runs: list[Run], html: Path) -> bool:
    """The runs' ``--json`` documents merged into one page at ``html``."""
    with tempfile.TemporaryDirectory(prefix="agentforge-corpus-report-") as scratch:
        documents = []
        for number, run in enumerate(runs):
            if run.stdout.lstrip().startswith("{"):
                documents.append(Path(scratch) / f"{number:04}.json")
                documents[-1].write_text(run.stdout, encoding="utf-8")
        done = subprocess.run([str(AGENTFORGE), "report", *map(str, documents), "-o", str(html)],
                              cwd=REPOSITORY, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"FAIL  report: {first_line(done.stderr)}")
        return False
    print(f"report: {html} ({plural(len(documents), 'replay')})")
    return True


def default_corpus() -> Path:
    configured = os.environ.get(CORPUS_ENV)
    return Path(configured) if configured else REPOSITORY.parent / "shared" / "corpus"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=None,
                        help=f"the corpus folder (default ${CORPUS_ENV}, then "
                             "../shared/corpus from the repository root)")
    parser.add_argument("--table", type=Path, default=TABLE, help="the table of expectations")
    parser.add_argument("--jobs", type=int, default=2, help="files replayed at once")
    parser.add_argument("--html", type=Path, default=None,
                        help="also write the replays' report as one HTML page here")
    options = parser.parse_args(argv)
    try:
        table = load_table(options.table)
    except TableError as exc:
        print(f"corpus: cannot run: {exc}", file=sys.stderr)
        return 1
    corpus = (options.corpus or default_corpus()).resolve()
    return check(corpus, table, options.jobs, options.html)


if __name__ == "__main__":
    sys.exit(main())
