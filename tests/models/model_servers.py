"""A local model server for the tests: one loopback HTTP server speaking OpenAI chat
completions (``/v1/chat/completions``), OpenAI Responses (``/v1/responses``), Anthropic
Messages (``/v1/messages``) and Gemini (``/v1*/models/M:generateContent``), answering
each request from a *policy* the test gives, and counting the requests it serves.

A policy is ``policy(wire, body) -> answer``; an answer is :class:`Calls`, :class:`Text`,
:class:`Status` (an error status, with headers) or :class:`Raw` (a response body as is).
:class:`RecordedPolicy` answers with the recorded response of a corpus cassette whose
request holds the same conversation (the same user texts, as many tool results).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from agentforge_cli.replay.transcripts.files.cassettes import body_value

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


@dataclass
class Calls:
    calls: list[tuple[str, dict[str, Any]]]
    text: str = ""


@dataclass
class Text:
    text: str


@dataclass
class Status:
    code: int
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Raw:
    body: Any


Policy = Callable[[str, dict[str, Any]], Any]


def wire_of(path: str) -> str | None:
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/responses"):
        return "openai-responses"
    if path.endswith("/messages"):
        return "anthropic"
    if ":generateContent" in path:
        return "gemini"
    return None


def encode(wire: str, answer: Calls | Text) -> dict[str, Any]:
    calls = answer.calls if isinstance(answer, Calls) else []
    text = answer.text
    if wire == "openai":
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["tool_calls"] = [
                {"id": f"call_{n}", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}
                for n, (name, args) in enumerate(calls)]
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}}
    if wire == "openai-responses":
        output: list[dict[str, Any]] = [
            {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
             "arguments": json.dumps(args), "status": "completed"}
            for n, (name, args) in enumerate(calls)]
        if text:
            output.insert(0, {"type": "message", "id": "msg_1", "role": "assistant",
                              "status": "completed", "content": [
                                  {"type": "output_text", "text": text, "annotations": []}]})
        return {"id": "resp_1", "object": "response", "created_at": 0, "model": "m",
                "status": "completed", "output": output, "parallel_tool_calls": True,
                "tool_choice": "auto", "tools": [],
                "usage": {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18,
                          "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 0}}}
    if wire == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [{"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": args}
                    for n, (name, args) in enumerate(calls)]
        return {"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                "content": content, "stop_reason": "tool_use" if calls else "end_turn",
                "usage": {"input_tokens": 11, "output_tokens": 7}}
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    parts += [{"functionCall": {"name": name, "args": args}} for name, args in calls]
    return {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 11, "candidatesTokenCount": 7}}


class ModelServer:
    """The server; ``requests`` holds ``(wire, path, headers, body)`` of each served."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.requests: list[tuple[str, str, dict[str, str], dict[str, Any]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                wire = wire_of(self.path.split("?")[0])
                server.requests.append((wire or "", self.path, dict(self.headers), body))
                if wire is None:
                    return self._send(404, {"error": {"message": "no such route"}})
                answer = server.policy(wire, body)
                if isinstance(answer, Status):
                    return self._send(answer.code, {"error": {"message": "policy",
                                                              "type": "rate_limit"}},
                                      answer.headers)
                if isinstance(answer, Raw):
                    return self._send(200, answer.body)
                return self._send(200, encode(wire, answer))

            def _send(self, code: int, document: Any,
                      headers: dict[str, str] | None = None) -> None:
                data = json.dumps(document).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def base_url(self, connection: str) -> str:
        root = f"http://127.0.0.1:{self.port}"
        return root + "/v1" if connection.startswith("openai") else root

    def count(self, wire: str | None = None) -> int:
        return sum(1 for request in self.requests if wire is None or request[0] == wire)


@contextmanager
def model_server(policy: Policy) -> Iterator[ModelServer]:
    server = ModelServer(policy)
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        server.thread.join(5)


# -- recorded answers ----------------------------------------------------------------


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict) and isinstance(value.get("text"), str) and \
            value.get("type", "text") == "text":
        return [value["text"]]
    return []


def signature(body: Any) -> tuple[tuple[str, ...], int]:
    """The user texts of a request (whitespace folded) and how many tool results it holds,
    whatever the wire format."""
    texts: list[str] = []
    results = 0

    def walk(value: Any) -> None:
        nonlocal results
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            if value.get("role") == "tool" or value.get("type") in (
                    "tool_result", "function_call_output") or \
                    "functionResponse" in value or "function_response" in value:
                results += 1
            if value.get("role") == "user":
                texts.extend(_texts(value.get("content")) + _texts(value.get("parts")))
            for key, item in value.items():
                if key not in ("tools", "system", "systemInstruction", "system_instruction"):
                    walk(item)

    walk(body.get("messages") or body.get("contents") or body.get("input") or [])
    return tuple(" ".join(text.split()) for text in texts if text.strip()), results


class RecordedPolicy:
    """Answers with the recorded response of the cassette's interaction whose request has
    the same signature; ``Text`` when none does (a counted miss)."""

    def __init__(self, cassette: Path) -> None:
        document = yaml.safe_load(cassette.read_text(encoding="utf-8"))
        self.answers: dict[tuple[tuple[str, ...], int], Any] = {}
        for interaction in document["interactions"]:
            request = body_value(interaction["request"])
            response = body_value(interaction["response"])
            if isinstance(request, dict) and isinstance(response, dict):
                self.answers.setdefault(signature(request), response)
        self.misses = 0

    def __call__(self, wire: str, body: dict[str, Any]) -> Any:
        answer = self.answers.get(signature(body))
        if answer is None:
            self.misses += 1
            return Text("no recorded answer")
        return Raw(answer)
