"""OpenTelemetry traces as transcripts: ``execute_tool`` spans exported as OTLP JSON, made
by the OpenTelemetry SDK with pydantic-ai's instrumentation and with agentforge's own
``TracingToolExecutor``; each trace a conversation, a tool span without its arguments
refused by place."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from agentforge_cli import ToolExecutionRequest, ToolService, TracingToolExecutor, tool
from agentforge_cli.core.run.discovery import build_local_tools
from agentforge_cli.replay.transcripts import (
    ConversationStart,
    ToolCall,
    ToolResult,
    TranscriptError,
    open_transcript,
)


def _provider():
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def otlp_json(spans) -> dict:
    """The OTLP JSON of finished spans, as the OTLP exporters encode them."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return MessageToDict(encode_spans(spans))


def pydantic_ai_trace(path: Path, runs: int = 2, version: int | None = None) -> Path:
    """``runs`` agent runs instrumented by pydantic-ai (its default instrumentation
    version, or ``version``), exported as OTLP JSON."""
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.models.test import TestModel

    provider, exporter = _provider()
    agent = Agent(TestModel())
    with warnings.catch_warnings():  # an older version is deprecated, and still written
        warnings.filterwarnings("ignore", "Instrumentation format versions")
        settings = (InstrumentationSettings(tracer_provider=provider) if version is None
                    else InstrumentationSettings(tracer_provider=provider, version=version))
    Agent.instrument_all(settings)

    @agent.tool_plain
    def lookup(city: str) -> str:
        """Look a city up."""
        return f"{city}: found"

    try:
        for _ in range(runs):
            asyncio.run(agent.run("Which city?"))
    finally:
        Agent.instrument_all(False)
    path.write_text(json.dumps(otlp_json(exporter.get_finished_spans())), encoding="utf-8")
    return path


def agentforge_trace(path: Path, *, record_content: bool = True) -> Path:
    from opentelemetry import trace

    provider, exporter = _provider()

    @tool
    def lookup(city: str) -> str:
        """Look a city up."""
        return f"{city}: found"

    table = build_local_tools([lookup])
    service = ToolService().tools({spec: TracingToolExecutor(
        executor, record_content=record_content, tracer_provider=provider)
        for spec, executor in table.items()})
    tracer = trace.get_tracer("app", tracer_provider=provider)
    for city in ("Paris", "Oslo"):
        with tracer.start_as_current_span("agent run"):
            service.execute(ToolExecutionRequest(id=f"call_{city}", name="lookup",
                                                 arguments=json.dumps({"city": city})))
    path.write_text(json.dumps(otlp_json(exporter.get_finished_spans())), encoding="utf-8")
    return path


@pytest.mark.parametrize("make", [pydantic_ai_trace, agentforge_trace])
def test_a_trace_replays_all_matched_one_conversation_per_trace(cli, tmp_path, city_tools, make):
    path = make(tmp_path / "trace.json")
    events = list(open_transcript(path).events())
    assert [type(e).__name__ for e in events] == [
        "ToolCall", "ToolResult", "ConversationStart", "ToolCall", "ToolResult"]
    assert [e.conversation for e in events if isinstance(e, ToolCall)] == [0, 1]
    done = cli("replay", str(path), "-t", city_tools, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "otel" and data["summary"]["matched"] == 2


def pydantic_ai_v2_trace(path: Path) -> Path:
    return pydantic_ai_trace(path, version=2)


def pydantic_ai_v1_trace(path: Path) -> Path:
    """The spans pydantic-ai wrote before it named the operation: version 2's ``running
    tool`` spans without ``gen_ai.operation.name`` (the rest as it was)."""
    data = json.loads(pydantic_ai_v2_trace(path).read_text(encoding="utf-8"))
    for resource in data["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                span["attributes"] = [item for item in span["attributes"]
                                      if item["key"] != "gen_ai.operation.name"]
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("make", [pydantic_ai_v2_trace, pydantic_ai_v1_trace])
def test_pydantic_ais_older_tool_spans_replay_all_matched(cli, tmp_path, city_tools, make):
    """Instrumentation versions 1 and 2 keep the call in ``tool_arguments`` and
    ``tool_response`` of ``running tool`` spans: read as the newer spans are."""
    path = make(tmp_path / "trace.json")
    text = path.read_text(encoding="utf-8")
    assert '"tool_arguments"' in text and "gen_ai.tool.call.arguments" not in text
    results = [e.content for e in open_transcript(path).events() if isinstance(e, ToolResult)]
    assert len(results) == 2 and all(text.endswith(": found") for text in results)
    done = cli("replay", str(path), "-t", city_tools, "--json")
    assert done.exit_code == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["format"] == "otel" and data["summary"]["matched"] == 2


def test_the_file_exporters_lines_are_read_and_traces_kept_together(tmp_path):
    """One export a line, a trace split over lines: its calls stay one conversation."""
    whole = json.loads(agentforge_trace(tmp_path / "t.json").read_text(encoding="utf-8"))
    spans = whole["resourceSpans"][0]["scopeSpans"][0]["spans"]
    lines = []
    for span in spans:  # each span exported on its own, as a batch of one
        one = json.loads(json.dumps(whole))
        one["resourceSpans"][0]["scopeSpans"][0]["spans"] = [span]
        lines.append(json.dumps(one))
    path = tmp_path / "spans.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    events = list(open_transcript(path).events())
    assert sum(isinstance(e, ConversationStart) for e in events) == 1
    assert [e.content for e in events if isinstance(e, ToolResult)] == [
        "Paris: found", "Oslo: found"]


def test_a_failed_tool_span_is_an_error_result(tmp_path):
    from opentelemetry import trace

    provider, exporter = _provider()

    @tool
    def explode(city: str) -> str:
        """Fail."""
        raise RuntimeError(f"no {city}")

    table = build_local_tools([explode])
    executor = TracingToolExecutor(next(iter(table.values())), record_content=True,
                                   tracer_provider=provider)
    with trace.get_tracer("app", tracer_provider=provider).start_as_current_span("run"):
        result = executor.execute(ToolExecutionRequest(id="c1", name="explode",
                                                       arguments='{"city": "Rome"}'))
    assert result.is_error
    path = tmp_path / "t.json"
    path.write_text(json.dumps(otlp_json(exporter.get_finished_spans())), encoding="utf-8")
    found = [e for e in open_transcript(path).events() if isinstance(e, ToolResult)]
    assert [(r.is_error, "no Rome" in r.content) for r in found] == [(True, True)]


def test_content_is_opt_in_and_secrets_are_masked(tmp_path):
    provider, exporter = _provider()

    @tool
    def login(user: str, password: str) -> str:
        """Log in."""
        return "ok"

    table = build_local_tools([login])
    for record in (False, True):
        executor = TracingToolExecutor(next(iter(table.values())), record_content=record,
                                       tracer_provider=provider)
        executor.execute(ToolExecutionRequest(id="c", name="login",
                                              arguments='{"user": "a", "password": "hunter2"}'))
    bare, full = (dict(span.attributes) for span in exporter.get_finished_spans())
    assert "gen_ai.tool.call.arguments" not in bare and "gen_ai.tool.call.result" not in bare
    assert "hunter2" not in full["gen_ai.tool.call.arguments"]
    assert json.loads(full["gen_ai.tool.call.arguments"])["user"] == "a"
    assert full["gen_ai.operation.name"] == "execute_tool"


def test_a_tool_span_without_arguments_is_refused_by_place(tmp_path):
    path = agentforge_trace(tmp_path / "t.json", record_content=False)
    with pytest.raises(TranscriptError, match=r"line 1, resourceSpans\[0\]\.scopeSpans\[0\]\."
                                              r"spans\[0\]: the execute_tool span of "
                                              "'lookup' has no gen_ai.tool.call.arguments"):
        list(open_transcript(path).events())


def test_update_is_refused(cli, tmp_path, city_tools):
    path = agentforge_trace(tmp_path / "t.json")
    text = path.read_text(encoding="utf-8").replace("Paris: found", "Paris: gone")
    path.write_text(text, encoding="utf-8")
    done = cli("replay", str(path), "-t", city_tools, "--update")
    assert done.exit_code == 3 and "--update does not write into a trace" in done.stderr
    assert path.read_text(encoding="utf-8") == text


def test_importing_agentforge_loads_no_opentelemetry():
    code = ("import sys, agentforge_cli; from agentforge_cli import tool, P; "
            "import agentforge_cli.core.observe.tracing; "
            "print(any(m.startswith('opentelemetry') for m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "False"
