"""A recording outlives the process's end: the calls a recorder has queued are written when
it is collected, at normal exit, on SIGTERM (before the process dies of it, or before the
application's own handler) and by forked children, each call exactly once.

Each process here is a real Python process started by the test."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import weakref
from collections import Counter
from pathlib import Path

from recording_tools import add

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools
from agentforge_cli.core.observe import recording

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

PRELUDE = """\
import os, signal, sys
from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools
from recording_tools import add

def call(service, prefix, count):
    for i in range(count):
        service.execute(ToolExecutionRequest(id=f"{prefix}{i}", name="add",
                                             arguments='{"a": 1, "b": 2}'))
"""


def env(**extra: str) -> dict[str, str]:
    """This checkout and the tests' tools importable; no recording unless asked."""
    values = {key: value for key, value in os.environ.items() if key != "AGENTFORGE_RECORD"}
    return {**values, "PYTHONPATH": f"{HERE}{os.pathsep}{ROOT}", **extra}


def run(code: str, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", PRELUDE + code, *args], capture_output=True,
                          text=True, env=env(**extra), timeout=120)


def start(code: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", PRELUDE + code, *args], text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env())


def ready(process: subprocess.Popen[str]) -> None:
    """Wait for the child's ``ready`` line: its calls are made."""
    assert process.stdout is not None
    line = process.stdout.readline()
    if line != "ready\n":
        process.kill()
        _, err = process.communicate(timeout=60)
        raise AssertionError(f"the child did not get ready: {line!r}\n{err}")


def stop(process: subprocess.Popen[str]) -> None:
    """End a child a failed assertion left running, and close its pipes."""
    if process.poll() is None:
        process.kill()
    process.wait(timeout=60)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def ids(path: Path) -> list[str]:
    """The ids of the calls written, checking that each result follows its call."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    calls, results = records[::2], records[1::2]
    assert [r["type"] for r in calls] == ["tool_call"] * len(calls)
    assert [(r["type"], r["id"], r["content"]) for r in results] == [
        ("tool_result", c["id"], "3") for c in calls]
    return [c["id"] for c in calls]


def named(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(count)]


def test_a_recorder_no_longer_used_is_written_when_it_is_collected(tmp_path):
    path = tmp_path / "calls.jsonl"

    def work() -> weakref.ref[recording.CallRecorder]:
        service = ToolService(record=path).tools(build_local_tools([add]))
        for i in range(5):
            service.execute(ToolExecutionRequest(id=f"c{i}", name="add",
                                                 arguments='{"a": 1, "b": 2}'))
        assert service.recorder is not None
        return weakref.ref(service.recorder)

    recorder = work()
    gc.collect()
    assert recorder() is None  # what writes the calls does not keep the recorder alive
    assert ids(path) == named("c", 5)


def test_a_service_made_in_a_function_is_written_at_exit(tmp_path):
    """One service gone with its function, one alive to the end: both files hold every
    call, though neither filled a batch nor was closed."""
    gone, alive = tmp_path / "gone.jsonl", tmp_path / "alive.jsonl"
    done = run("""
def work(path):
    service = ToolService(record=path).tools(build_local_tools([add]))
    call(service, "c", 10)

work(sys.argv[1])
kept = ToolService(record=sys.argv[2]).tools(build_local_tools([add]))
call(kept, "k", 70)
""", str(gone), str(alive))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert ids(gone) == named("c", 10)
    assert ids(alive) == named("k", 70)


def test_sigterm_writes_the_calls_queued_and_the_process_still_dies_of_it(tmp_path):
    path = tmp_path / "calls.jsonl"
    process = start("""
service = ToolService(record=sys.argv[1]).tools(build_local_tools([add]))
call(service, "c", 70)  # a batch written, six queued
print("ready", flush=True)
sys.stdin.read()
""", str(path))
    try:
        ready(process)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == -signal.SIGTERM
    finally:
        stop(process)
    assert ids(path) == named("c", 70)


def test_an_application_sigterm_handler_runs_after_the_calls_are_written(tmp_path):
    """The application's handler, set before the recorder, finds the calls in the file;
    it lets the process go on, and the calls made after are written once too."""
    path = tmp_path / "calls.jsonl"
    process = start("""
def on_sigterm(signum, frame):
    with open(sys.argv[1], encoding="utf-8") as recorded:
        print("handled, lines written:", len(recorded.readlines()), flush=True)

signal.signal(signal.SIGTERM, on_sigterm)
service = ToolService(record=sys.argv[1]).tools(build_local_tools([add]))
call(service, "c", 5)
print("ready", flush=True)
sys.stdin.readline()
call(service, "d", 3)
""", str(path))
    try:
        ready(process)
        process.send_signal(signal.SIGTERM)
        assert process.stdout is not None
        assert process.stdout.readline() == "handled, lines written: 10\n"
        out, err = process.communicate("go on\n", timeout=60)
        assert process.returncode == 0, err
        assert out == "" and err == ""
    finally:
        stop(process)
    assert ids(path) == named("c", 5) + named("d", 3)


def test_sigterm_in_the_middle_of_a_write_waits_for_it(tmp_path):
    """SIGTERM is handled while the main thread spells out a batch (holding the recorder's
    lock, which the handler's own write needs): the batch is written, then the process
    dies of the signal. The signal is sent by the str() of an id that is not text, which
    the recorder calls as it writes."""
    path = tmp_path / "calls.jsonl"
    done = run("""
from agentforge_cli.core.observe.recording import FLUSH_EVERY

class SignalledWhenWritten:
    def __str__(self):
        os.kill(os.getpid(), signal.SIGTERM)  # its Python handler runs here
        return "c0"

service = ToolService(record=sys.argv[1]).tools(build_local_tools([add]))
service.execute(ToolExecutionRequest(id=SignalledWhenWritten(), name="add",
                                     arguments='{"a": 1, "b": 2}'))
for i in range(1, FLUSH_EVERY):
    call(service, f"c{i}-", 1)
print("not reached")
""", str(path))
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert done.stdout == ""
    assert ids(path) == ["c0"] + [f"c{i}-0" for i in range(1, recording.FLUSH_EVERY)]


def test_forked_children_write_their_own_calls_once_and_none_of_the_parents(tmp_path):
    """Calls queued before each fork are the parent's; a child that ends with os._exit
    and one that exits normally each write their own calls, once."""
    path = tmp_path / "calls.jsonl"
    done = run("""
service = ToolService(record=sys.argv[1]).tools(build_local_tools([add]))
call(service, "p", 5)
pid = os.fork()
if pid == 0:
    call(service, "a", 3)
    os._exit(0)
assert os.waitpid(pid, 0)[1] == 0
call(service, "r", 2)
pid = os.fork()
if pid == 0:
    call(service, "b", 3)
    sys.exit(0)
assert os.waitpid(pid, 0)[1] == 0
call(service, "q", 2)
""", str(path))
    assert done.returncode == 0, done.stderr
    written = ids(path)
    expected = named("p", 5) + named("a", 3) + named("r", 2) + named("b", 3) + named("q", 2)
    assert Counter(written) == Counter(expected)
    assert written[:3] == named("a", 3)  # the child's own, at once; the parent's at exit


def test_multiprocessing_fork_children_write_each_call_once_in_a_file_of_their_own(tmp_path):
    """AGENTFORGE_RECORD with a ``multiprocessing`` fork Process and Pool (children end
    with os._exit; the pool's are terminated): every call once, each in its process's
    file."""
    folder = tmp_path / "recorded"
    done = run("""
import multiprocessing

service = ToolService().tools(build_local_tools([add]))

def one(i):
    call(service, f"w{i}-", 1)
    return os.getpid()

if __name__ == "__main__":
    context = multiprocessing.get_context("fork")
    call(service, "p", 5)
    child = context.Process(target=call, args=(service, "k", 3))
    child.start()
    child.join()
    with context.Pool(2) as pool:
        workers = sorted(set(pool.map(one, range(20))))
    call(service, "q", 2)
    print(os.getpid(), child.pid, child.exitcode, *workers)
""", AGENTFORGE_RECORD=str(folder))
    assert done.returncode == 0, done.stderr
    parent, child, exitcode, *workers = map(int, done.stdout.split())
    assert exitcode == 0
    files = {int(f.stem.rsplit("-", 1)[1]): ids(f) for f in folder.glob("*.jsonl")}
    assert files[parent] == named("p", 5) + named("q", 2)
    assert files[child] == named("k", 3)
    assert set(files) == {parent, child, *workers}
    pooled = Counter(i for worker in workers for i in files[worker])
    assert pooled == Counter(f"w{i}-0" for i in range(20))


def test_a_child_forked_while_the_parent_writes_still_dies_of_sigterm(tmp_path):
    """Another thread forks while the main thread is writing a batch (the recorder's lock
    held, SIGTERM waiting for the write): in the child neither is held, its calls are
    written and SIGTERM ends it."""
    path = tmp_path / "calls.jsonl"
    done = run("""
import threading
from agentforge_cli.core.observe.recording import FLUSH_EVERY

def fork_a_child():
    pid = os.fork()
    if pid == 0:
        call(service, "k", 2)
        os.kill(os.getpid(), signal.SIGTERM)
        os._exit(7)  # not reached
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)

class ForkedWhenWritten:
    def __str__(self):
        thread = threading.Thread(target=fork_a_child)
        thread.start()
        thread.join()
        return "c0"

service = ToolService(record=sys.argv[1]).tools(build_local_tools([add]))
service.execute(ToolExecutionRequest(id=ForkedWhenWritten(), name="add",
                                     arguments='{"a": 1, "b": 2}'))
for i in range(1, FLUSH_EVERY):
    call(service, f"c{i}-", 1)
""", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{-signal.SIGTERM}\n"
    assert ids(path) == ["k0", "k1", "c0"] + [f"c{i}-0" for i in range(1, recording.FLUSH_EVERY)]
