"""docs/extending.md is what the registries are: the entry-point groups it names are the
registries' groups, its field tables list every field of each declared value (and which
are required), and its examples, registered as the page shows, work: the type rule gives a
schema and a coercion, the provider lists and checks, the adapter makes a target, the
transcript format is detected, read, refuses a bad record and writes ``--update``'s
results, and the page's test of it passes."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools, tool
from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.core.define.handlers import registry as types
from agentforge_cli.core.define.handlers.type_rule import TypeRule, a_type_rule
from agentforge_cli.errors import ToolDefinitionError
from agentforge_cli.integrations import frameworks
from agentforge_cli.integrations.frameworks.adapter import FrameworkAdapter, a_framework_adapter
from agentforge_cli.replay.transcripts import registry as transcripts
from agentforge_cli.replay.transcripts.format import ApiReading, FileReading, TranscriptFormat
from agentforge_cli.schema import providers
from agentforge_cli.schema.providers.base import Provider

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "extending.md"
BLOCK = re.compile(r"```python\n# (\w+)\.py\n(.*?)```", re.S)
CRM = "sample_tools.crm:CrmTools"
SETUP = "agentforge_examples_setup"


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def examples() -> dict[str, str]:
    """The page's modules: name -> source."""
    return dict(BLOCK.findall(page()))


def entry_points() -> dict[str, dict[str, str]]:
    (toml,) = re.findall(r"```toml\n(.*?)```", page(), re.S)
    return tomllib.loads(toml)["project"]["entry-points"]


def registries() -> dict[str, ExtensionPoint[Any]]:
    found: list[ExtensionPoint[Any]] = [types.TYPE_HANDLERS, providers.REGISTRY,
                                        frameworks.ADAPTERS, transcripts.TRANSCRIPT_FORMATS]
    return {point.group: point for point in found}


def table_problems(value: type, text: str) -> list[str]:
    """What the page's table of ``value``'s fields gets wrong: a field left out or out of
    order, one that is not there, a required field not said to be required or the
    reverse."""
    header = f"| field of `{value.__name__}` | what it is |"
    rows = text.split(header, 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    cells = [[cell.strip() for cell in row.strip("|").split("|", 1)] for row in rows]
    fields = dataclasses.fields(value)  # type: ignore[arg-type]  # each is a dataclass
    problems = []
    if [name.strip("`") for name, _ in cells] != [f.name for f in fields]:
        problems.append(f"{value.__name__}: the rows are not the fields")
    required = [f.name for f in fields if f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    if [name.strip("`") for name, text in cells if text.startswith("required")] != required:
        problems.append(f"{value.__name__}: the required fields are {required}")
    return problems


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """The page's modules written out and ``agentforge_examples_setup`` imported, against
    copies of the four registries (no other test sees the entries)."""
    monkeypatch.setattr(types, "TYPE_HANDLERS", ExtensionPoint(
        "type handler", types.TYPE_HANDLERS.group, types.TYPE_HANDLERS.entries(),
        check=a_type_rule))
    monkeypatch.setattr(providers, "REGISTRY", ExtensionPoint(
        "provider", providers.REGISTRY.group, providers.REGISTRY.entries()))
    monkeypatch.setattr(frameworks, "ADAPTERS", ExtensionPoint(
        "framework adapter", frameworks.ADAPTERS.group, frameworks.ADAPTERS.entries(),
        check=a_framework_adapter))
    monkeypatch.setattr(transcripts, "TRANSCRIPT_FORMATS", ExtensionPoint(
        "transcript format", transcripts.TRANSCRIPT_FORMATS.group,
        transcripts.TRANSCRIPT_FORMATS.entries(), check=transcripts.as_transcript_format))
    for name, source in examples().items():
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    names = [*examples(), "minitools", "my_tools"]
    try:
        __import__(SETUP)
        yield
    finally:
        for name in names:
            sys.modules.pop(name, None)


# --- the page and the registries ------------------------------------------------------------

def test_the_page_names_exactly_the_registries_groups():
    named = set(re.findall(r"\bagentforge\.[a-z_]+\b", page()))
    assert named == set(registries())


def test_each_field_table_lists_every_field_and_which_are_required():
    for value in (TypeRule, Provider, FrameworkAdapter, TranscriptFormat, FileReading,
                  ApiReading):
        assert table_problems(value, page()) == []


def test_a_table_that_leaves_a_field_out_or_calls_it_optional_is_named():
    dropped = re.sub(r"\| `in_module_scan` \|.*\n", "", page())
    assert table_problems(FrameworkAdapter, dropped) == [
        "FrameworkAdapter: the rows are not the fields"]
    optional = page().replace("| `roots` | required; ", "| `roots` | ")
    assert table_problems(FrameworkAdapter, optional) == [
        "FrameworkAdapter: the required fields are ['name', 'library', 'roots', "
        "'holds_tools', 'read_tools']"]


def test_the_entry_points_name_the_page_s_values(registered):
    groups = entry_points()
    assert set(groups) == set(registries())
    for group, points in groups.items():
        for value in points.values():
            module, _, attribute = value.partition(":")
            assert getattr(sys.modules[module], attribute) in registries()[group].entries()


# --- the examples at work --------------------------------------------------------------------

def ping(host: ipaddress.IPv4Address) -> str:
    """Ping a host."""
    return f"pong from {host}"


def test_without_the_type_rule_the_type_is_refused():
    with pytest.raises(ToolDefinitionError, match="unsupported type IPv4Address"):
        build_local_tools([tool(name="ping")(ping)])


def test_the_type_rule_gives_a_schema_and_a_coercion(registered):
    table = build_local_tools([tool(name="ping")(ping)])
    (spec,) = table
    assert spec.parameters["properties"]["host"] == {"type": "string", "format": "ipv4"}
    service = ToolService().tools(table)
    assert service.execute(ToolExecutionRequest(name="ping", arguments='{"host":" 10.0.0.1 "}')
                           ) == ("pong from 10.0.0.1", False)
    assert service.execute(ToolExecutionRequest(name="ping", arguments='{"host":"10.0.0.300"}')
                           ) == ('Argument "host" is not an IPv4 address: <10.0.0.300> '
                                 '(tool "ping")', True)
    (executor,) = table.values()
    trace = executor.explain('{"host":"10.0.0.1"}').traces[0]
    assert trace.rule == "JSON string <10.0.0.1> coerced to IPv4Address"


def test_the_provider_lists_and_checks(registered, plain_terminal, cli):
    listed = cli("tools", "list", CRM, "--format", "acme")
    assert listed.exit_code == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)
    assert (entry["fn"], sorted(entry["args"]["properties"])) == (
        "queryCustomer", ["limit", "name"])
    assert "the name is refused: use 1 to 40 lowercase letters or '_'" in listed.stderr
    checked = cli("tools", "check", CRM, "--provider", "acme", "--json")
    assert checked.exit_code == 1
    assert [f["rule"] for f in json.loads(checked.stdout)["findings"]] == ["acme:name"]


MINITOOLS = '''
class Tool:
    def __init__(self, name, doc, schema, run):
        self.name, self.doc, self.schema, self.run = name, doc, schema, run

class Toolbox:
    def __init__(self, *tools):
        self.tools = list(tools)
'''

MY_TOOLS = '''
import minitools

def add(a: int, b: int) -> int:
    return a + b

adding = minitools.Tool("add", "Add two numbers.", {
    "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"]}, add)
box = minitools.Toolbox(adding)
'''


def test_the_adapter_makes_the_library_s_tools_targets(registered, plain_terminal, cli,
                                                       tmp_path, monkeypatch):
    (tmp_path / "minitools.py").write_text(MINITOOLS, encoding="utf-8")
    target = tmp_path / "my_tools.py"
    target.write_text(MY_TOOLS, encoding="utf-8")
    listed = cli("tools", "list", str(target), "--format", "json")
    assert listed.exit_code == 0, listed.stderr
    assert [(t["name"], t["parameters"]["required"]) for t in json.loads(listed.stdout)] == [
        ("add", ["a", "b"])]  # the toolbox is not read again
    native = cli("tools", "call", "add", '{"a": 1, "b": 2}', "-t", str(target))
    assert (native.exit_code, native.stdout.strip()) == (0, "3")
    refused = cli("tools", "call", "add", '{"a": 1,', "-t", str(target))
    assert refused.exit_code == 1
    assert "minitools: the arguments are not JSON" in refused.stdout + refused.stderr
    bound = cli("tools", "call", "add", '{"a": "1", "b": 2,}', "-t", str(target),
                "--binding", "agentforge")
    assert (bound.exit_code, bound.stdout.strip()) == (0, "3"), bound.stderr
    box = cli("tools", "list", f"{target}:box")
    assert box.exit_code == 0 and "[add] Add two numbers." in box.stdout, box.stderr


TINYLOG = ('{"say": "查一下客户"}\n'
           '{"call": "queryCustomer", "args": {"name": "长路", "limit": 5}}\n'
           '{"result": "customer:长路,limit:5"}\n')


def test_the_transcript_format_is_detected_and_named(registered, cli, tmp_path):
    talk = tmp_path / "talk.jsonl"
    talk.write_text(TINYLOG, encoding="utf-8")
    for named in ((), ("--format", "tinylog")):
        result = cli("replay", str(talk), "-t", CRM, "--json", *named)
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        assert (data["format"], data["summary"]["matched"]) == ("tinylog", 1)


def test_update_writes_today_s_results_into_a_tinylog(registered, cli, tmp_path):
    talk = tmp_path / "talk.jsonl"
    unanswered = '{"call": "queryCustomer", "args": {"name": "小明", "limit": 3}}\n'
    talk.write_text(TINYLOG.replace("limit:5", "stale") + unanswered, encoding="utf-8")
    stale = cli("replay", str(talk), "-t", CRM, "--json")
    assert json.loads(stale.stdout)["summary"] == {
        "matched": 0, "mismatched": 1, "unrecorded": 1}
    updated = cli("replay", str(talk), "-t", CRM, "--update")
    assert updated.exit_code == 0, updated.stderr
    assert talk.read_text(encoding="utf-8").splitlines() == [
        *TINYLOG.splitlines(), unanswered.strip(),
        '{"result": "customer:小明,limit:3"}']  # the stale line replaced, one added
    again = cli("replay", str(talk), "-t", CRM, "--json")
    assert json.loads(again.stdout)["summary"]["matched"] == 2


def test_the_tinylog_migrates_its_calls_after_a_rename(registered, tmp_path):
    from agentforge_cli.replay.transcripts import open_transcript
    from agentforge_cli.replay.transcripts.writing.migration import Migration

    talk = tmp_path / "talk.jsonl"
    talk.write_text('{"call": "x", "args": {"q": 1}}\n{"result": "ok"}\n', encoding="utf-8")
    open_transcript(talk).write({}, Migration.parse(["x=y"], ["y.q=query"], ()))
    assert talk.read_text(encoding="utf-8") == (
        '{"call": "y", "args": {"query": 1}}\n{"result": "ok"}\n')


def test_update_refuses_a_format_without_rewrite(registered, cli, tmp_path):
    tinylog = sys.modules["agentforge_tinylog"].TINYLOG
    transcripts.TRANSCRIPT_FORMATS.register(dataclasses.replace(
        tinylog, name="tinylog-read-only", title="read-only tinylog lines", rewrite=None))
    talk = tmp_path / "talk.jsonl"
    stale = TINYLOG.replace("limit:5", "stale")
    talk.write_text(stale, encoding="utf-8")
    refused = cli("replay", str(talk), "-t", CRM, "--update", "--format", "tinylog-read-only")
    assert refused.exit_code == 3
    said = " ".join(refused.stderr.split())
    message = ("--update does not write into read-only tinylog lines; replay it without "
               "--update")
    assert said.count(message) == 1, said
    assert talk.read_text(encoding="utf-8") == stale


@pytest.mark.parametrize(("line", "shown"), [
    ('{"result": 5}', "line 3, result: expected a string"),
    ('{"say": ["hi"]}', "line 3, say: expected a string"),
    ('{"reply": "hi"}', "line 3: expected a say, call or result object"),
])
def test_a_bad_tinylog_record_is_refused_with_its_place(registered, cli, tmp_path, line,
                                                        shown):
    talk = tmp_path / "talk.jsonl"
    talk.write_text('{"say": "hi"}\n{"call": "queryCustomer", "args": {}}\n' + line + "\n",
                    encoding="utf-8")
    refused = cli("replay", str(talk), "-t", CRM, "--format", "tinylog")
    assert refused.exit_code == 3
    assert f"talk.jsonl, {shown}" in " ".join(refused.stderr.split())


def test_the_page_s_test_of_the_format_passes(registered, tmp_path):
    (block,) = [block for block in re.findall(r"```python\n(.*?)```", page(), re.S)
                if "def test_tinylog" in block]
    namespace: dict[str, Any] = {}
    exec(compile(block, "extending.md", "exec"), namespace)
    namespace["test_tinylog_is_detected_read_and_rewritten"](tmp_path)
