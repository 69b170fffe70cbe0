"""A model's cassette written behind its requests: off the asking thread, and never lost —
flushed at the close, for a reader of the same file, on Ctrl-C and on SIGTERM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml
from model_servers import Calls, Status, model_server

from agentforge_cli.models import cassette as cassette_module
from agentforge_cli.models.cassette import Cassette, Recorded, request_key
from agentforge_cli.models.errors import ModelError

ROOT = Path(__file__).resolve().parents[2]
AGENTFORGE = Path(sys.executable).with_name("agentforge")
CRM = "sample_tools.crm:CrmTools"
TRANSCRIPT = "sample_tools/transcripts/crm.jsonl"


def _add(kept: Cassette, n: int) -> None:
    body = '{"messages":[{"role":"user","content":"' + str(n) + '"}]}'
    kept.add("post", "https://api.example/v1/chat", body,
             Recorded(200, "application/json", '{"n": ' + str(n) + '}'))


def _count(path: Path) -> int:
    return len(yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"])


def _writes_on(monkeypatch) -> list[int]:
    """The threads that write the file, one entry a write."""
    threads: list[int] = []
    real = Cassette._write

    def write(self, text):
        threads.append(threading.get_ident())
        real(self, text)

    monkeypatch.setattr(Cassette, "_write", write)
    return threads


def _until(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.005)


def test_responses_are_written_by_the_writer_once_the_next_request_goes_out(
        tmp_path, monkeypatch):
    monkeypatch.setattr("agentforge_cli.models.cassette_writer.LINGER", 60.0)
    threads = _writes_on(monkeypatch)
    path = tmp_path / "c.yaml"
    kept = Cassette(path, write_behind=True)
    for n in range(3):
        _add(kept, n)
    time.sleep(0.1)
    assert not path.exists() and threads == []  # no request followed yet: nothing written
    kept.sending()
    _until(lambda: path.exists() and _count(path) == 3)
    assert threads and threading.get_ident() not in threads
    _add(kept, 3)
    kept.close()
    assert _count(path) == 4
    assert Cassette(path).play(request_key(
        "POST", "https://api.example/v1/chat",
        '{"messages":[{"role":"user","content":"3"}]}')).body == '{"n": 3}'


def test_without_a_next_request_a_response_is_written_after_the_linger(tmp_path, monkeypatch):
    monkeypatch.setattr("agentforge_cli.models.cassette_writer.LINGER", 0.05)
    path = tmp_path / "c.yaml"
    kept = Cassette(path, write_behind=True)
    _add(kept, 1)
    _until(lambda: path.exists())
    assert _count(path) == 1
    kept.close()


def test_the_file_written_behind_is_the_one_written_at_once(tmp_path):
    at_once, behind = Cassette(tmp_path / "a.yaml"), Cassette(tmp_path / "b.yaml",
                                                              write_behind=True)
    for n in range(5):
        _add(at_once, n)
        _add(behind, n)
    behind.close()
    assert (tmp_path / "a.yaml").read_text() == (tmp_path / "b.yaml").read_text()


def test_opening_the_file_again_reads_every_response_an_open_cassette_kept(
        tmp_path, monkeypatch):
    monkeypatch.setattr("agentforge_cli.models.cassette_writer.LINGER", 60.0)
    path = tmp_path / "c.yaml"
    kept = Cassette(path, write_behind=True)
    for n in range(4):
        _add(kept, n)
    assert len(Cassette(path)._interactions) == 4
    kept.close()


def test_a_response_kept_after_the_close_is_written_at_once(tmp_path):
    path = tmp_path / "c.yaml"
    kept = Cassette(path, write_behind=True)
    kept.close()
    _add(kept, 1)
    assert _count(path) == 1


def test_a_failed_write_is_raised_as_a_model_error_by_check_and_close(tmp_path, monkeypatch):
    def refuse(self, text):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Cassette, "_write", refuse)
    kept = Cassette(tmp_path / "c.yaml", write_behind=True)
    _add(kept, 1)
    kept.sending()
    _until(lambda: kept._writer.failure is not None)
    with pytest.raises(ModelError, match=r"cannot write the model cassette .*c\.yaml"):
        kept.check()
    with pytest.raises(ModelError, match="Permission denied"):
        kept.close()


def test_each_interaction_is_still_emitted_once(tmp_path, monkeypatch):
    emitted = []
    real = cassette_module._item_yaml
    monkeypatch.setattr(cassette_module, "_item_yaml",
                        lambda interaction: emitted.append(interaction) or real(interaction))
    kept = Cassette(tmp_path / "c.yaml", write_behind=True)
    for n in range(20):
        _add(kept, n)
        kept.sending()
    kept.close()
    assert len(emitted) == 20 and _count(tmp_path / "c.yaml") == 20


# ---------------------------------------------------------------- a run interrupted


def _eval(server, cassette: Path, repeat: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(AGENTFORGE), "eval", CRM, TRANSCRIPT, "-m", "openai:local", "--base-url",
         server.base_url("openai"), "--cache", str(cassette), "-k", str(repeat),
         "--concurrency", "1", "--retries", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "NO_COLOR": "1", "OPENAI_API_KEY": "sk-interrupted"})


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM])
def test_a_run_interrupted_after_n_responses_keeps_all_n_and_a_rerun_plays_them(
        tmp_path, sent):
    answered, reached, signalled = 3, threading.Event(), threading.Event()
    served = []

    def policy(wire, body):
        served.append(body)
        if len(served) == answered + 1:  # the run is interrupted while this one waits
            reached.set()
            signalled.wait(10)
            time.sleep(0.5)
            return Status(500)
        return Calls([("queryCustomer", {"name": "长路", "limit": 5})])

    cassette = tmp_path / "c.yaml"
    with model_server(policy) as server:  # one server: the requests' URL is part of the key
        process = _eval(server, cassette, repeat=6)
        try:
            assert reached.wait(60), process.stderr.read() if process.poll() else "no request"
            process.send_signal(sent)
            signalled.set()
            process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
        assert process.returncode == (130 if sent == signal.SIGINT else -signal.SIGTERM)
        assert _count(cassette) == answered
        rerun = _eval(server, cassette, repeat=6)
        out, err = rerun.communicate(timeout=60)
    assert rerun.returncode == 0, err
    assert f"requests: {6 - answered} sent, {answered} from the cassette" in out
    assert _count(cassette) == 6
