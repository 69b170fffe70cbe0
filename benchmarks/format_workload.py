"""Transcripts in each provider's shape, written as the real tools write them, for the
format rows: OpenAI chat (one JSON array), Anthropic ``messages``, Gemini ``contents``,
OpenAI Responses ``input``/``output`` items, a vcrpy YAML cassette whose bodies are the
provider's JSON, and agentforge JSONL (one file, or a folder of small files).

Every file is written streamed from string templates (a million calls take seconds),
a call ``i`` asking ``queryCustomer`` for ``{"name": "长路", "limit": i % 100}`` and
recording the result ``sample_tools.crm:CrmTools`` returns for it.
"""

from __future__ import annotations

import json
from pathlib import Path

_CHUNK = 10_000
"""Calls formatted and written at a time."""
_USER_TEXT = '查一下客户\\"长路\\"的信息'
_RESULT = "customer:长路,limit:%(limit)d"
_ARGUMENTS = '{\\"name\\":\\"长路\\",\\"limit\\":%(limit)d}'

# Each format: the text before the first call, one call and its result (``%`` fields
# ``i`` and ``limit``), and the text after the last call.
_OPENAI = (
    '[\n{"role":"user","content":"' + _USER_TEXT + '"}',
    ',\n{"role":"assistant","content":null,"tool_calls":[{"id":"call_%(i)d","type":'
    '"function","function":{"name":"queryCustomer","arguments":"' + _ARGUMENTS + '"}}]}'
    ',\n{"role":"tool","tool_call_id":"call_%(i)d","content":"' + _RESULT + '"}',
    ',\n{"role":"assistant","content":"已查询到客户长路。"}\n]\n',
)
_ANTHROPIC = (
    '{\n  "messages": [\n    {"role":"user","content":"' + _USER_TEXT + '"}',
    ',\n    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_%(i)d",'
    '"name":"queryCustomer","input":{"name":"长路","limit":%(limit)d}}]}'
    ',\n    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%(i)d",'
    '"content":"' + _RESULT + '","is_error":false}]}',
    ',\n    {"role":"assistant","content":[{"type":"text","text":"已查询到客户长路。"}]}'
    '\n  ],\n  "model": "claude-sonnet-4-5"\n}\n',
)
_GEMINI = (
    '{\n  "contents": [\n    {"role":"user","parts":[{"text":"' + _USER_TEXT + '"}]}',
    ',\n    {"role":"model","parts":[{"functionCall":{"id":"call_%(i)d",'
    '"name":"queryCustomer","args":{"name":"长路","limit":%(limit)d}}}]}'
    ',\n    {"role":"user","parts":[{"functionResponse":{"id":"call_%(i)d",'
    '"name":"queryCustomer","response":{"result":"' + _RESULT + '"}}}]}',
    ',\n    {"role":"model","parts":[{"text":"已查询到客户长路。"}]}\n  ]\n}\n',
)
_RESPONSES = (
    '{\n  "model": "gpt-4.1",\n  "input": [\n    {"type":"message","role":"user",'
    '"content":[{"type":"input_text","text":"' + _USER_TEXT + '"}]}',
    ',\n    {"type":"function_call","id":"fc_%(i)d","call_id":"call_%(i)d",'
    '"name":"queryCustomer","arguments":"' + _ARGUMENTS + '","status":"completed"}'
    ',\n    {"type":"function_call_output","call_id":"call_%(i)d","output":"'
    + _RESULT + '"}',
    '\n  ],\n  "output": [\n    {"type":"message","id":"msg_1","role":"assistant",'
    '"status":"completed","content":[{"type":"output_text","text":"已查询到客户长路。",'
    '"annotations":[]}]}\n  ]\n}\n',
)
_JSONL = (
    '{"type":"user","content":"' + _USER_TEXT + '"}\n',
    '{"type":"tool_call","id":"call_%(i)d","name":"queryCustomer","arguments":"'
    + _ARGUMENTS + '"}\n'
    '{"type":"tool_result","id":"call_%(i)d","content":"' + _RESULT + '","is_error":false}\n',
    '{"type":"assistant","content":"已查询到客户长路。"}\n',
)

_TEXT = "客户长路的档案：最近的订单、地址和联系记录。" + "x" * 64
# A long assistant reply, in each format (``%(text)s``), to make a file large cheaply.
PADDING: dict[str, str] = {
    "OpenAI chat": ',\n{"role":"assistant","content":"%(text)s"}',
    "Anthropic": ',\n    {"role":"assistant","content":[{"type":"text","text":"%(text)s"}]}',
    "Gemini": ',\n    {"role":"model","parts":[{"text":"%(text)s"}]}',
    "Responses": ',\n    {"type":"message","id":"msg_0","role":"assistant","status":'
                 '"completed","content":[{"type":"output_text","text":"%(text)s",'
                 '"annotations":[]}]}',
}

DOCUMENTS: dict[str, tuple[str, str, str]] = {
    "OpenAI chat": _OPENAI, "Anthropic": _ANTHROPIC, "Gemini": _GEMINI,
    "Responses": _RESPONSES,
}
"""The whole-file JSON formats, by the name a row shows."""


def _write(path: Path, template: tuple[str, str, str], calls: int, first: int = 0,
           padding: str = "") -> None:
    """``padding`` is written after each chunk of calls."""
    head, call, tail = template
    with path.open("w", encoding="utf-8") as out:
        out.write(head)
        for start in range(first, first + calls, _CHUNK):
            stop = min(start + _CHUNK, first + calls)
            out.write("".join([call % {"i": i, "limit": i % 100} for i in range(start, stop)]))
            out.write(padding)
        out.write(tail)


def write_document(path: Path, name: str, calls: int, pad_mb: int = 0) -> None:
    """A whole-file JSON transcript of ``calls`` calls in the format ``name`` (a key of
    :data:`DOCUMENTS`), with about ``pad_mb`` MB more of long assistant replies (1 MB
    each) spread between the calls."""
    chunks = -(-calls // _CHUNK)
    replies = -(-pad_mb // chunks) if pad_mb else 0
    text = _TEXT * (1_000_000 // len(_TEXT.encode()))
    padding = PADDING[name] % {"text": text} * replies
    _write(path, DOCUMENTS[name], calls, padding=padding)


def write_jsonl(path: Path, calls: int, first: int = 0) -> None:
    """An agentforge JSONL transcript of ``calls`` calls, numbered from ``first``."""
    _write(path, _JSONL, calls, first)


def write_folder(folder: Path, files: int, calls: int) -> None:
    """``files`` JSONL transcripts of ``calls`` calls each, in nested folders of 100."""
    for index in range(files):
        sub = folder / f"day_{index // 100:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        write_jsonl(sub / f"session_{index:05d}.jsonl", calls, first=index * calls)


# vcrpy's YAML: each body the JSON the SDK sent (``json.dumps``, ASCII-escaped), in a
# single-quoted scalar; one conversation is a request answered by a tool call, then the
# request carrying the call and its result, answered by text.
_TOOLS = json.dumps([{"type": "function", "function": {
    "name": "queryCustomer", "description": "按客户名查询客户信息",
    "parameters": {"type": "object", "properties": {"name": {"type": "string"},
                                                    "limit": {"type": "integer"}},
                   "required": ["name", "limit"]}}}], separators=(",", ":"))
_HTTP = "    headers:\n      Content-Type:\n      - application/json\n"
_LIMIT = 987_654_321
"""A stand-in for the call's ``limit``, replaced by a ``%`` field in the template."""


def _interaction(request: list, response: dict) -> str:
    body = json.dumps({"messages": request, "model": "gpt-4o", "tools": json.loads(_TOOLS)},
                      separators=(",", ":"))
    reply = json.dumps(response, separators=(",", ":"))
    return ("- request:\n    body: '" + body.replace("'", "''") + "'\n" + _HTTP
            + "    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n"
            "  response:\n    body:\n      string: '" + reply.replace("'", "''") + "'\n"
            + _HTTP + "    status:\n      code: 200\n      message: OK\n")


def _conversation_template() -> str:
    """Two interactions of one OpenAI chat conversation, with ``%`` fields for the call."""
    user = {"role": "user", "content": "查一下客户\"长路\"的信息"}
    arguments = json.dumps({"name": "长路", "limit": _LIMIT}, ensure_ascii=False,
                           separators=(",", ":"))
    call = {"id": "call_@I@", "type": "function",
            "function": {"name": "queryCustomer", "arguments": arguments}}
    asked = {"role": "assistant", "content": None, "tool_calls": [call]}
    answered = {"role": "tool", "tool_call_id": "call_@I@",
                "content": f"customer:长路,limit:{_LIMIT}"}
    final = {"role": "assistant", "content": "已查询到客户长路。"}
    first = _interaction([user], {"id": "chatcmpl-@I@", "object": "chat.completion",
                                  "model": "gpt-4o", "choices": [{
                                      "index": 0, "message": asked,
                                      "finish_reason": "tool_calls"}]})
    second = _interaction([user, asked, answered], {
        "id": "chatcmpl-@I@b", "object": "chat.completion", "model": "gpt-4o",
        "choices": [{"index": 0, "message": final, "finish_reason": "stop"}]})
    text = (first + second).replace("%", "%%").replace("@I@", "%(i)d")
    return text.replace(str(_LIMIT), "%(limit)d")


def write_cassette(path: Path, interactions: int) -> None:
    """A vcrpy YAML cassette of ``interactions`` OpenAI chat interactions (two per
    conversation: one call each)."""
    _write(path, ("interactions:\n", _conversation_template(), "version: 1\n"),
           interactions // 2)


def write_sleepy_tools(folder: Path, seconds: float = 0.001) -> str:
    """A module ``sleepy_tools`` in ``folder`` whose ``queryCustomer`` sleeps ``seconds``
    and answers as the CRM sample does; returns the target name."""
    (folder / "sleepy_tools.py").write_text(
        "import time\n\nfrom agentforge_cli import tool\n\n\n"
        "@tool(name='queryCustomer')\n"
        "def query_customer(name: str, limit: int) -> str:\n"
        '    """Look a customer up (slowly)."""\n'
        f"    time.sleep({seconds!r})\n"
        "    return f'customer:{name},limit:{limit}'\n", encoding="utf-8")
    return "sleepy_tools"

