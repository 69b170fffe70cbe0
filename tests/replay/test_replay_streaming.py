"""Long transcripts are read in blocks, a line or message at a time, and give what a
whole read gives: the same records, the same errors, the same output."""

from __future__ import annotations

import gzip
import json

import pytest

from agentforge_cli.replay.report import CallReport, call_json
from agentforge_cli.replay.transcripts.files import documents, limits
from agentforge_cli.replay.transcripts.files.documents import iter_document
from agentforge_cli.replay.transcripts.files.jsonl import iter_jsonl
from agentforge_cli.replay.transcripts.files.whole_documents import load_document
from agentforge_cli.replay.transcripts.place import WHOLE_FILE, Place

CRM = "sample_tools.crm:CrmTools"
CALL = {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
    "name": "queryCustomer", "arguments": '{"name": "长路", "limit": 5}'}}]}
RESULT = {"role": "tool", "tool_call_id": "c1", "content": "customer:长路,limit:5"}

DOCUMENTS = [
    json.dumps([{"role": "user", "content": "hi"}, CALL, RESULT], ensure_ascii=False),
    json.dumps([CALL, RESULT], ensure_ascii=False, indent=2),
    "\ufeff" + json.dumps({"model": "m", "messages": [CALL, RESULT], "n": 1.5e3}),
    json.dumps({"input": "hello", "output": [{"type": "message"}], "x": [1, [2]]}),
    json.dumps({"output": [{"a": 1}], "contents": [{"b": "x\\u00e9"}], "tools": []}),
    '{"messages": [], "messages": [{"role": "user", "content": "last wins"}]}',
    "[]",
    '  [ 1 , -2.5e-3 , true , null , "s" , {"k" : []} ]  \n',
]

MALFORMED = [
    '[{"role": "user"},\n {"role": "user" "content": 1}]',
    '[{"role": "user"},]',
    '[1, 2',
    '[1] [2]',
    '[1]\n\n  x',
    '{"messages": [1], "a": }',
    '{"messages" [1]}',
    '{"messages": [1],}',
    '[NaN]',
    '[tru]',
    '["\\uZZZZ"]',
    '["unterminated]',
    '"just a string"',
    '{"no": "messages"}',
    '   ',
    '[{"a": "\x01"}]',
]


def _outcome(read, path):
    try:
        return [(r.data, str(r.where), r.position) for r in read(path)]
    except Exception as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("block", [1, 3, 7, 1 << 20])
@pytest.mark.parametrize("text", DOCUMENTS + MALFORMED)
def test_a_streamed_document_reads_as_the_whole_document(text, block, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(documents, "_BLOCK_CHARS", block)
    assert _outcome(iter_document, path) == _outcome(lambda p: load_document(p).records, path)


def test_a_streamed_document_yields_its_first_message_before_reading_the_rest(tmp_path):
    path = tmp_path / "t.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write("[" + ",".join([json.dumps(CALL)] * 50_000) + ", broken")
    stream = iter_document(path)
    assert str(next(stream).where) == "messages[0]"  # the broken end is not read yet
    with pytest.raises(Exception, match="invalid JSON"):
        list(stream)


def test_a_json_document_has_no_size_limit_but_each_message_has(cli, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(json.dumps([CALL, RESULT, {"role": "user", "content": "x" * 5000}]),
                    encoding="utf-8")
    monkeypatch.setattr(limits, "MAX_DOCUMENT_BYTES", 1000)
    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 10_000)
    done = cli("replay", str(path), "-t", CRM, "--json")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["summary"]["matched"] == 1
    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 1000)
    refused = cli("replay", str(path), "-t", CRM, "--json")
    assert refused.exit_code == 3
    assert "messages[2]" in refused.stderr and "longer than 1000 bytes" in refused.stderr


def test_jsonl_read_in_blocks_keeps_every_line_as_written(tmp_path, monkeypatch):
    lines = ['\ufeff{"a": 1}\r\n', "\n", "  \n", "null\n", '{"b": "é"} \n', "[1]\n",
             '{"c": 2}']
    path = tmp_path / "t.jsonl"
    path.write_text("".join(lines), encoding="utf-8", newline="")
    for block in (1, 2, 5, 1 << 20):
        monkeypatch.setattr(limits, "BLOCK_BYTES", block)
        got = [(r.data, str(r.where), r.text, r.blank) for r in iter_jsonl(path)]
        assert "".join(text for _, _, text, _ in got) == "".join(lines).removeprefix("\ufeff")
        assert [record for record in got if record[0] is not None] == [
            ({"a": 1}, "line 1", '{"a": 1}\r\n', False),
            ({"b": "é"}, "line 5", '{"b": "é"} \n', False), ([1], "line 6", "[1]\n", False),
            ({"c": 2}, "line 7", '{"c": 2}', False)]
        assert (None, "line 4", "null\n", True) in got
        # lines 2 and 3 are blank: one record when a block holds both
        blank = [record for record in got if record[1] in ("line 2", "line 3")]
        assert blank == ([(None, "line 2", "\n  \n", True)] if block > 5 else
                         [(None, "line 2", "\n", True), (None, "line 3", "  \n", True)])


def test_jsonl_read_in_blocks_names_the_bad_line(tmp_path, monkeypatch):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a": "\xff"}\n' + b'{"a": "' + b"x" * 3000 + b'"}\n')
    for block in (4, 1 << 20):
        monkeypatch.setattr(limits, "BLOCK_BYTES", block)
        with pytest.raises(Exception, match="line 3: not UTF-8 text"):
            list(iter_jsonl(path))
    path.write_bytes(b'{"a": 1}\n' * 3 + b'{"a": "' + b"x" * 3000 + b'"}\n{"a": 1}\n')
    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 1000)
    for block in (64, 1 << 20):
        monkeypatch.setattr(limits, "BLOCK_BYTES", block)
        with pytest.raises(Exception, match="line 4: the line is longer than 1000 bytes"):
            list(iter_jsonl(path))


@pytest.mark.parametrize("call", [
    CallReport(index=0, id="c1", name="q", arguments='{"a": "长"}', where=Place(2),
               actual="ok", is_error=False, duration_ms=0.12345, shown_arguments='{"a": 1}',
               expected="ok", expected_is_error=False, status="matched"),
    CallReport(index=1, id=None, name='we"ird\n', arguments="{}",
               where=WHOLE_FILE.at("messages", 3),
               actual="\ud800 \x00 ✓", is_error=True, duration_ms=12, expected=None,
               status="unrecorded"),
    CallReport(index=2, id="x", name="q", arguments='{"api_key": "s"}', where=WHOLE_FILE.at("w"),
               actual="", is_error=False, duration_ms=1e-7, expected="other",
               expected_is_error=True, status="mismatched"),
])
def test_a_json_report_line_is_the_call_as_json(call):
    encode = json.JSONEncoder(ensure_ascii=False).encode
    assert call_json(call) == encode(call.to_dict())
