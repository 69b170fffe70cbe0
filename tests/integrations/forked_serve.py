"""Run ``agentforge serve ARGS`` RUNS times at once, each fed the same input then closed.

    python tests/integrations/forked_serve.py RUNS ARGS... < messages.jsonl

Prints one JSON list: per run, its stdout, stderr and exit code. Each run is a child
process forked once the command line and the MCP SDK are imported (importing them takes
about a second, forking a few milliseconds), which then runs the real command
(``agentforge_cli.cli.app.main``) on its own pipes: the server reads the whole input,
sees its stdin close, and must answer every request before it exits.
"""

import json
import os
import sys
import tempfile

import mcp.server.stdio  # noqa: F401  (imported once, before forking)

from agentforge_cli.cli.app import main as agentforge


def _child(stdin: int, stdout: int, stderr: int, others: list[int], args: list[str]) -> None:
    for fd in others:  # the parent's ends: held here, a sibling's stdin would never close
        os.close(fd)
    os.dup2(stdin, 0)
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    code = 0
    try:
        sys.argv = ["agentforge", "serve", *args]
        agentforge()
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 70
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(runs: int, args: list[str]) -> None:
    feed = sys.stdin.buffer.read()
    children = []
    parent_ends: list[int] = []
    for _ in range(runs):
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_file = tempfile.TemporaryFile()  # noqa: SIM115 (closed once read)
        pid = os.fork()
        parent_ends += [stdin_write, stdout_read]
        if pid == 0:
            _child(stdin_read, stdout_write, stderr_file.fileno(), parent_ends, args)
        os.close(stdin_read)
        os.close(stdout_write)
        children.append((pid, stdin_write, stdout_read, stderr_file))
    for _, stdin_write, _, _ in children:
        os.write(stdin_write, feed)  # small: fits the pipe, never blocks
        os.close(stdin_write)  # ...and stdin closes right after the last request
    report = []
    for pid, _, stdout_read, stderr_file in children:
        with os.fdopen(stdout_read, "rb") as stream:
            out = stream.read()
        _, status = os.waitpid(pid, 0)
        with stderr_file:
            stderr_file.seek(0)
            err = stderr_file.read()
        report.append({"stdout": out.decode("utf-8"), "stderr": err.decode("utf-8", "replace"),
                       "code": os.waitstatus_to_exitcode(status)})
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2:])
