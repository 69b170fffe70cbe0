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
