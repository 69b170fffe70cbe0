"""``agentforge record -- COMMAND``: secrets stay out of the session log in every shape a
message takes (a batch, an elicitation answer, the roots a client lists), while values
given to the server that are short or common (``--env DEBUG=1``) are left alone so the
log still replays.

The hostile server is a script on pipes (nothing listens on a port)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcp_client_support import ROOT, TIMEOUT, server_env
from test_mcp_record import SCRIPT, TIME_SERVER, lockstep, logged, record_command, replay

# Asks the client for a password and for its roots, then answers every request (one by
# one, or a batch with a batch) with an empty result, until its input ends.
ASKING_SERVER = '''
import json, sys

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

send({"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {
    "message": "Sign in", "requestedSchema": {"type": "object", "properties": {
        "user": {"type": "string"}, "password": {"type": "string"}}}}})
send({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"})
for line in sys.stdin:
    message = json.loads(line)
    batch = message if isinstance(message, list) else [message]
    answers = [{"jsonrpc": "2.0", "id": m["id"], "result": {}} for m in batch
               if "method" in m and "id" in m]
    if answers:
        send(answers if isinstance(message, list) else answers[0])
'''

SECRETS = ("hunter22-batch", "tok-batch-777", "hunter22-elicited", "ghp_rootsecret1",
           "rootquery123", "zz-plural-999")


def _messages_from_a_client() -> list[object]:
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        [{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "login", "arguments": {"user": "ann", "password": "hunter22-batch"}}},
         {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
             "name": "fetch", "arguments": {"auth_tokens": ["tok-batch-777"],
                                            "options": {"secrets": "zz-plural-999"}}}}],
        {"jsonrpc": "2.0", "id": "e1", "result": {"action": "accept", "content": {
            "user": "ann", "password": "hunter22-elicited"}}},
        {"jsonrpc": "2.0", "id": "r1", "result": {"roots": [
            {"uri": "https://x-access-token:ghp_rootsecret1@github.com/o/r.git",
             "name": "r"},
            {"uri": "HTTPS://git.example/r?team=7;token=rootquery123"},
            {"uri": "file:///home/ann/project", "name": "project"}]}},
    ]


def test_secrets_in_batches_elicitation_answers_and_roots_stay_out(tmp_path: Path) -> None:
    server = tmp_path / "asking.py"
    server.write_text(ASKING_SERVER, encoding="utf-8")
    log = tmp_path / "session.jsonl"
    lines = "".join(json.dumps(m) + "\n" for m in _messages_from_a_client()).encode()
    done = subprocess.run(record_command(log, sys.executable, str(server)), input=lines,
                          capture_output=True, cwd=ROOT, env=server_env(), timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    text = log.read_text(encoding="utf-8")
    for secret in SECRETS:
        assert secret not in text, secret
    sent = [e["message"] for e in logged(log) if e["direction"] == "client_to_server"]
    batch, elicited, roots = sent[1], sent[2], sent[3]
    assert batch[0]["params"]["arguments"] == {"user": "ann", "password": "***"}
    assert batch[1]["params"]["arguments"] == {"auth_tokens": "***",
                                               "options": {"secrets": "***"}}
    assert elicited["result"] == {"action": "accept",
                                  "content": {"user": "ann", "password": "***"}}
    assert [root["uri"] for root in roots["result"]["roots"]] == [
        "https://***@github.com/o/r.git", "HTTPS://git.example/r?team=7;token=***",
        "file:///home/ann/project"]
    # the server's batch answer is logged as a batch too, untouched
    answers = [e["message"] for e in logged(log) if e["direction"] == "server_to_client"]
    assert [2, 3] in [[a["id"] for a in m] for m in answers if isinstance(m, list)]


def test_no_mask_writes_an_elicitation_answer_as_sent(tmp_path: Path) -> None:
    server = tmp_path / "asking.py"
    server.write_text(ASKING_SERVER, encoding="utf-8")
    log = tmp_path / "session.jsonl"
    lines = "".join(json.dumps(m) + "\n" for m in _messages_from_a_client()).encode()
    subprocess.run(record_command(log, sys.executable, str(server), extra=("--no-mask",)),
                   input=lines, capture_output=True, cwd=ROOT, env=server_env(),
                   timeout=TIMEOUT, check=True)
    text = log.read_text(encoding="utf-8")
    assert all(secret in text for secret in SECRETS)


def test_short_or_common_env_values_leave_the_log_replayable(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    command = record_command(log, *TIME_SERVER, extra=(
        "--env", "DEBUG=1", "--env", "LOG_FORMAT=2025-06-18", "--env", "MODE=production",
        "--env", "SHORT_TOKEN=abc"))
    _, status = lockstep(command, SCRIPT)
    assert status == 0
    text = log.read_text(encoding="utf-8")
    assert '"protocolVersion":"2025-06-18"' in text and '"id":1,' in text
    code, report = replay(str(log), "-t", "mcp:" + " ".join(TIME_SERVER))
    assert code == 0, report
    assert report["summary"]["matched"] == 1
