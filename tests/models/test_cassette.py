"""The model cassette's file: the document vcrpy writes, each interaction emitted once."""

from __future__ import annotations

import yaml

from agentforge_cli.models import cassette as cassette_module
from agentforge_cli.models.cassette import Cassette, Recorded


def _add(kept: Cassette, n: int) -> None:
    body = '{"messages":[{"role":"user","content":"查一下 \\"长路\\" ' + str(n) + '"}]}'
    kept.add("post", f"https://api.example/v1/chat?key=secret&n={n}", body,
             Recorded(200, "application/json", '{"choices": [], "n": ' + str(n) + '}'))


def test_the_file_is_the_document_safe_dump_writes_and_reads_back(tmp_path):
    path = tmp_path / "c.yaml"
    first = Cassette(path)
    _add(first, 1)
    again = Cassette(path)  # loaded from the file, then one more added
    _add(again, 2)
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert path.read_text(encoding="utf-8") == yaml.safe_dump(
        document, allow_unicode=True, sort_keys=False, width=1 << 20)
    assert list(document) == ["interactions", "version"] and document["version"] == 1
    assert [i["request"]["uri"] for i in document["interactions"]] == [
        "https://api.example/v1/chat?n=1", "https://api.example/v1/chat?n=2"]
    assert "secret" not in path.read_text(encoding="utf-8")
    assert Cassette(path).play(next(iter(Cassette(path)._by_key))).body.endswith('1}')


def test_each_interaction_is_emitted_once_however_many_follow(tmp_path, monkeypatch):
    emitted = []
    real = cassette_module._item_yaml
    monkeypatch.setattr(cassette_module, "_item_yaml",
                        lambda interaction: emitted.append(interaction) or real(interaction))
    kept = Cassette(tmp_path / "c.yaml")
    for n in range(20):
        _add(kept, n)
    assert len(emitted) == 20
    assert len(yaml.safe_load((tmp_path / "c.yaml").read_text())["interactions"]) == 20


def test_a_key_is_made_only_while_a_recorded_response_is_left_to_play(tmp_path, monkeypatch):
    made = []
    real = cassette_module.request_key
    monkeypatch.setattr(cassette_module, "request_key",
                        lambda *request: made.append(request) or real(*request))
    first = Cassette(tmp_path / "c.yaml")  # a first run: nothing can play
    for n in (1, 2):
        assert first.key("POST", "http://m/v1/chat", f'{{"n":{n}}}') is None
        first.add("POST", "http://m/v1/chat", f'{{"n":{n}}}', Recorded(200, "a/j", str(n)))
    assert made == []
    again = Cassette(tmp_path / "c.yaml")  # the next run plays both, then makes no key
    made.clear()
    keys = [again.key("POST", "http://m/v1/chat", body) for body in ('{"n": 2}', '{"n":1}')]
    assert [again.play(key).body for key in keys] == ["2", "1"]
    assert len(made) == 2
    assert again.key("POST", "http://m/v1/chat", '{"n":1}') is None
    assert again.play(None) is None


def test_a_partly_played_cassette_still_plays_what_is_left(tmp_path):
    first = Cassette(tmp_path / "c.yaml")
    body = '{"n":1}'
    for answer in ("a", "b"):  # --repeat 2 of one request
        first.add("POST", "http://m/v1/chat", body, Recorded(200, "a/j", answer))
    again = Cassette(tmp_path / "c.yaml")
    key = again.key("POST", "http://m/v1/chat", body)
    assert again.play(key).body == "a"
    again.add("POST", "http://m/v1/chat", '{"n":2}', Recorded(200, "a/j", "c"))  # sent
    assert again.play(again.key("POST", "http://m/v1/chat", body)).body == "b"
    assert again.key("POST", "http://m/v1/chat", body) is None
