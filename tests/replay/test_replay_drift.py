"""The ``drifted`` verdict: a recorded call whose arguments no longer fit today's tool (a
renamed parameter, a required one absent, a value today's binding refuses) is reported,
not run, and fails the replay unless drift is allowed. What the coercion table repairs
is no drift. In the library, the trace, ``--json``, JUnit, ``--update``, several files,
MCP targets and the pytest items."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from cli_support import ROOT

from agentforge_cli import ToolService, build_local_tools, tool
from agentforge_cli.core.define.spec import ToolExecutionResult, ToolSpecification
from agentforge_cli.replay.argument_drift import ArgumentFit, argument_fit
from agentforge_cli.replay.report import DRIFTED, MATCHED, MISMATCHED, UNRECORDED
from agentforge_cli.replay.runner import Replayer, replay
from agentforge_cli.replay.transcripts import ToolCall, ToolResult
from agentforge_cli.replay.transcripts.place import Place

SEARCH = '''
from agentforge_cli import tool

RAN = []


@tool
def web_search(search_query: str, limit: int = 3, site: str | None = None) -> str:
    """Search the web."""
    RAN.append(search_query)
    return f"results for {search_query} ({limit})"
'''

RENAMED = ('"query" was recorded but web_search has no such parameter '
           "(it has search_query)")
MISSING = '"search_query" is required by web_search but was not recorded'
REFUSED = ('"limit" was recorded with a value web_search refuses today: has non-integer '
           "value for int: <many>")


def _tools(strict: bool = False):
    namespace: dict = {}
    exec(SEARCH, namespace)
    return (ToolService().tools(build_local_tools([namespace["web_search"]], strict=strict)),
            namespace["RAN"])


def _call(index: int, arguments: str, name: str = "web_search") -> ToolCall:
    return ToolCall(index=index, id=f"c{index}", name=name, arguments=arguments,
                    where=Place(index + 1))


def _result(index: int, content: str, is_error: bool | None = False) -> ToolResult:
    return ToolResult(call_index=index, id=f"c{index}", content=content, is_error=is_error)


@pytest.mark.parametrize(("arguments", "drift"), [
    ('{"query": "tea"}', RENAMED),
    ('{"query": "tea", "limit": 2}', RENAMED),
    ('{"q": "tea", "n": 1}', '"q", "n" were recorded but web_search has no such parameters '
                             "(it has search_query)"),
    ('{"search_query": "tea", "page": 2}', '"page" was recorded but web_search has no such '
                                           "parameter (it has limit, site)"),
    ('{"limit": 2}', MISSING),
    ('{"search_query": null}', MISSING),
    ("{}", MISSING),
    ('{"query": "tea",}', RENAMED),  # sloppy JSON is read as the executor repairs it
    ('"{\\"query\\": \\"tea\\"}"', RENAMED),  # encoded twice
])
@pytest.mark.parametrize("strict", [False, True])
def test_what_no_longer_fits_is_drift_and_is_not_run(arguments, drift, strict):
    service, ran = _tools(strict)
    report = replay([_call(0, arguments), _result(0, "results for tea (3)")], service)
    call = report.calls[0]
    assert (call.status, call.drift) == (DRIFTED, drift)
    assert call.actual is None and call.is_error is None and call.invocation is None
    assert ran == []  # not run: its arguments no longer mean what the model meant
    assert report.failed and report.summary == {MATCHED: 0, MISMATCHED: 0, UNRECORDED: 0,
                                                DRIFTED: 1}
    assert call.to_dict()["drift"] == drift and call.to_dict()["status"] == DRIFTED
    assert not call.needs_update and report.updates() == {}


@pytest.mark.parametrize(("arguments", "today"), [
    ('{"search_query": "tea", "limit": "5"}', "results for tea (5)"),  # coerced
    ('{"search_query": "tea", "limit": 5.0}', "results for tea (5)"),
    ('{"search_query": "tea", "limit": " 7 "}', "results for tea (7)"),
    ('{"search_query": "tea"}', "results for tea (3)"),  # an optional one left out
    ('{"search_query": "tea", "site": null}', "results for tea (3)"),
    ('"{\\"search_query\\": \\"tea\\"}"', "results for tea (3)"),  # encoded twice
    ('{"search_query": "tea",}', "results for tea (3)"),  # a trailing comma
])
def test_what_the_binding_repairs_is_no_drift(arguments, today):
    service, ran = _tools()
    report = replay([_call(0, arguments), _result(0, today)], service)
    assert [(c.status, c.drift) for c in report.calls] == [(MATCHED, None)]
    assert ran == ["tea"] and not report.failed
    assert DRIFTED not in report.summary


def test_a_refused_value_drifts_unless_the_recording_shows_the_same_error():
    service, ran = _tools()
    refused = '{"search_query": "tea", "limit": "many"}'
    error = service.execute(_request(refused)).text
    events = [
        _call(0, refused), _result(0, "results for tea (many)"),  # it worked then
        _call(1, refused), _result(1, error, is_error=True),  # it failed then, as today
        _call(2, refused), _result(2, "old wording", is_error=True),  # failed otherwise
        _call(3, refused), _result(3, error, is_error=None),  # no flag: the same text
        _call(4, refused),  # no recorded result
    ]
    report = replay(events, service)
    assert [(c.status, c.drift) for c in report.calls] == [
        (DRIFTED, REFUSED), (MATCHED, None), (MISMATCHED, None), (MATCHED, None),
        (DRIFTED, REFUSED)]
    assert ran == []  # a refused value never reaches the tool
    status = replay(events, service, match="status")
    assert [c.status for c in status.calls] == [DRIFTED, MATCHED, MATCHED, DRIFTED, DRIFTED]


@pytest.mark.parametrize("strict", [False, True])
def test_drifted_keys_with_a_refused_value_run_and_meet_a_recorded_failure(strict):
    """Such a call cannot reach the tool in either binding mode: it runs, and a recording
    that shows it failing is compared as for any call; one that shows a success is
    drift."""
    service, ran = _tools(strict)
    arguments = '{"limit": "many"}'  # search_query missing, limit refused
    lenient_error = ('Argument "limit" has non-integer value for int: <many> '
                     '(tool "web_search")')
    today = service.execute(_request(arguments)).text
    events = [_call(0, arguments), _result(0, lenient_error, is_error=True),
              _call(1, arguments), _result(1, "results", is_error=False)]
    report = replay(events, service)
    assert [(c.status, c.drift) for c in report.calls] == [
        (MATCHED if today == lenient_error else MISMATCHED, None), (DRIFTED, MISSING)]
    assert (today == lenient_error) is not strict  # strict stops at the missing one
    assert ran == []


def _request(arguments: str):
    from agentforge_cli.core.define.spec import ToolExecutionRequest

    return ToolExecutionRequest(name="web_search", arguments=arguments)


def test_unknown_tools_and_unreadable_arguments_are_no_drift():
    service, _ = _tools()
    events = [_call(0, '{"query": "tea"}', name="old_search"),
              _result(0, 'Unknown tool "old_search". Did you mean: web_search?', True),
              _call(1, "not json"), _result(1, "results", False)]
    report = replay(events, service)
    assert [(c.status, c.drift) for c in report.calls] == [(MATCHED, None),
                                                          (MISMATCHED, None)]
    assert report.calls[1].is_error and "could not be parsed" in report.calls[1].actual


def test_allowed_drift_is_reported_without_failing():
    service, ran = _tools()
    events = [_call(0, '{"query": "tea"}'), _result(0, "x"),
              _call(1, '{"search_query": "tea"}'), _result(1, "results for tea (3)")]
    allowed = Replayer(service, allow_drift=True)
    calls = [entry for entry in allowed.run(events) if hasattr(entry, "status")]
    assert [c.status for c in calls] == [DRIFTED, MATCHED]
    assert not allowed.failed and not allowed.drift_failed
    assert allowed.summary[DRIFTED] == 1
    strict = Replayer(service)
    list(strict.run(events))
    assert strict.failed and strict.drift_failed
    assert not replay(events, service, allow_drift=True).failed
    assert ran == ["tea", "tea", "tea"]  # the call that fits, once per replay


def test_drift_is_checked_through_the_logging_wrapper(caplog):
    from agentforge_cli.core.observe.calllog import LoggingToolExecutor

    namespace: dict = {}
    exec(SEARCH, namespace)
    table = build_local_tools([namespace["web_search"]])
    service = ToolService().tools({spec: LoggingToolExecutor(executor)
                                   for spec, executor in table.items()})
    report = replay([_call(0, '{"query": "tea"}'),
                     _call(1, '{"search_query": "tea", "limit": "many"}')], service)
    assert [(c.status, c.drift) for c in report.calls] == [(DRIFTED, RENAMED),
                                                          (DRIFTED, REFUSED)]


class _McpLike:
    """An executor as an MCP target gives one: a specification (the ``inputSchema``)
    and no Python definition."""

    def __init__(self, schema: dict) -> None:
        self.specification = ToolSpecification(name="lookup", parameters=schema)
        self.seen: list[str] = []

    def execute(self, request, memory_id=None):
        self.seen.append(request.arguments)
        return ToolExecutionResult("found", False)


@pytest.mark.parametrize(("schema", "arguments", "drift"), [
    ({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
      "additionalProperties": False},
     '{"customer": "x"}', '"customer" was recorded but lookup has no such parameter (it '
                          "has name)"),
    ({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
     '{"customer": "x"}', '"name" is required by lookup but was not recorded'),
    ({"type": "object", "properties": {"name": {}, "limit": {}},
      "additionalProperties": False},
     '{"name": "x", "page": 2}', '"page" was recorded but lookup has no such parameter '
                                 "(it has limit)"),
    ({"type": "object", "properties": {"name": {}}, "additionalProperties": False},
     '{"name": "x", "page": 2}', '"page" was recorded but lookup has no such parameter '
                                 "(its parameters: name)"),
    ({"type": "object", "properties": {}, "additionalProperties": False},
     '{"name": "x"}', '"name" was recorded but lookup has no such parameter (it takes no '
                      "arguments)"),
    ({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
     '{"name": "x", "extra": 1}', None),  # other properties are allowed there
    ({"type": "object", "properties": {"limit": {"type": "integer"}}},
     '{"limit": "many"}', None),  # values are the server's to judge
    ({"type": "object"}, '{"anything": 1}', None),  # no properties: nothing to check
])
def test_mcp_tools_are_checked_by_their_input_schema(schema, arguments, drift):
    executor = _McpLike(schema)
    service = ToolService().tools({executor.specification: executor})
    report = replay([ToolCall(index=0, id="c", name="lookup", arguments=arguments),
                     ToolResult(call_index=0, id="c", content="found", is_error=False)],
                    service)
    call = report.calls[0]
    assert call.drift == drift
    assert call.status == (DRIFTED if drift else MATCHED)
    assert executor.seen == ([] if drift else [arguments])


def test_argument_fit_reads_the_tool_once():
    @tool
    def lookup(name: str, limit: int = 1) -> str:
        """Look up."""
        return name

    executor = next(iter(build_local_tools([lookup]).values()))
    fit = argument_fit(executor)
    assert isinstance(fit, ArgumentFit)
    assert fit.drift('{"name": "x"}') is None
    assert fit.drift('{"name": "x", "limit": 1, "city": "y"}') == (
        '"city" was recorded but lookup has no such parameter (its parameters: name, limit)')
    assert fit.refused('{"name": "x", "limit": "many"}').startswith('"limit" was recorded')
    assert fit.refused('{"name": "x", "limit": "5"}') is None
    assert fit.refused("not json") is None  # no parameter's value: no drift
    assert argument_fit(object()) is None


# -- the command line -------------------------------------------------------------------

TRANSCRIPT = [
    {"type": "user", "content": "find tea"},
    {"type": "tool_call", "id": "c1", "name": "web_search",
     "arguments": '{"query": "tea"}'},
    {"type": "tool_result", "id": "c1", "content": "results for tea (3)", "is_error": False},
    {"type": "tool_call", "id": "c2", "name": "web_search",
     "arguments": '{"search_query": "tea", "limit": "5"}'},
    {"type": "tool_result", "id": "c2", "content": "results for tea (5)", "is_error": False},
    {"type": "tool_call", "id": "c3", "name": "web_search",
     "arguments": '{"search_query": "tea"}'},
    {"type": "assistant", "content": "done"},
]


@pytest.fixture
def recorded(tmp_path, write_module) -> tuple[Path, Path]:
    module = write_module("drift_search_tools", SEARCH)
    path = tmp_path / "old.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in TRANSCRIPT), encoding="utf-8")
    return path, module


def test_the_trace_shows_what_drifted_and_fails(cli, recorded):
    path, module = recorded
    result = cli("replay", str(path), "-t", str(module))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[:6] == [
        "[user]    find tea",
        "[think]   call web_search",
        '[act]     web_search {"query": "tea"}',
        "[reflect] web_search not run  ⚠ drifted",
        '          "query" was recorded but web_search has no such parameter (it has',
        "          search_query)",
    ]
    assert "drifted           1" in lines
    assert lines[-1] == "✗ 1 of 3 calls drifted from today's tools (not run)"


def test_allow_drift_passes_and_says_so(cli, recorded):
    path, module = recorded
    result = cli("replay", str(path), "-t", str(module), "--allow-drift")
    assert result.exit_code == 0
    assert "[reflect] web_search not run  ⚠ drifted" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "✓ 3 calls replayed, no result differs (1 drifted, not run: allowed)")


def test_a_mismatch_and_a_drift_are_both_named(cli, recorded):
    path, module = recorded
    lines = [*TRANSCRIPT[:4], dict(TRANSCRIPT[4], content="other")]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = cli("replay", str(path), "-t", str(module))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (
        "✗ 1 of 2 calls differs from the recording; 1 drifted (not run)")
    allowed = cli("replay", str(path), "-t", str(module), "--allow-drift")
    assert allowed.exit_code == 1
    assert allowed.stdout.splitlines()[-1] == "✗ 1 of 2 calls differs from the recording"


@pytest.mark.parametrize("allow", [False, True])
def test_json_names_the_drift(cli, recorded, allow):
    path, module = recorded
    result = cli("replay", str(path), "-t", str(module), "--json",
                 *(["--allow-drift"] if allow else []))
    assert result.exit_code == (0 if allow else 1)
    document = json.loads(result.stdout)
    assert document["summary"] == {"matched": 1, "mismatched": 0, "unrecorded": 1,
                                   "drifted": 1}
    drifted = document["calls"][0]
    assert {key: drifted[key] for key in ("id", "status", "actual", "is_error", "expected",
                                          "drift")} == {
        "id": "c1", "status": "drifted", "actual": None, "is_error": None,
        "expected": "results for tea (3)", "drift": RENAMED}
    assert [call["status"] for call in document["calls"]] == ["drifted", "matched",
                                                              "unrecorded"]
    assert ["drift" in call for call in document["calls"]] == [True, False, False]


@pytest.mark.parametrize("allow", [False, True])
def test_junit_fails_a_drift_or_passes_it_with_a_message(cli, recorded, tmp_path, allow):
    path, module = recorded
    junit = tmp_path / "report.xml"
    result = cli("replay", str(path), "-t", str(module), "--junit", str(junit),
                 *(["--allow-drift"] if allow else []))
    assert result.exit_code == (0 if allow else 1)
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == (
        "3", "0" if allow else "1", "1")
    case = suite.findall("testcase")[0]
    assert case.get("name") == "c1 web_search"
    failure = case.find("failure")
    if allow:
        assert failure is None
        assert case.find("system-out").text == f"drifted, not run (allowed): {RENAMED}"
    else:
        assert failure.get("type") == "drift"
        assert failure.text == f"call at line 2\n{RENAMED}"
        assert case.find("system-out").text == f"drifted, not run: {RENAMED}"


def test_update_leaves_a_drifted_call_as_recorded_and_still_fails(cli, recorded):
    path, module = recorded
    result = cli("replay", str(path), "-t", str(module), "--update")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-2:] == [
        "updated 1 recorded result in the transcript",
        "✗ 1 of 3 calls drifted from today's tools (not run)"]
    written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert written[2] == TRANSCRIPT[2]  # the drifted call's recording is kept
    assert written[6] == {"type": "tool_result", "id": "c3",
                          "content": "results for tea (3)", "is_error": False}
    allowed = cli("replay", str(path), "-t", str(module), "--update", "--allow-drift")
    assert allowed.exit_code == 0


def test_several_files_count_the_drift_in_the_total(cli, recorded, tmp_path):
    path, module = recorded
    clean = tmp_path / "clean.jsonl"
    clean.write_text("".join(json.dumps(line) + "\n" for line in TRANSCRIPT[3:5]),
                     encoding="utf-8")
    result = cli("replay", str(clean), str(path), "-t", str(module))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[-8:] == ["all 2 transcripts, 1 failed", "status        calls",
                          "matched           2", "mismatched        0",
                          "unrecorded        1", "drifted           1",
                          "total             4",
                          "✗ 1 of 4 calls drifted from today's tools (not run)"]
    as_json = json.loads(cli("replay", str(clean), str(path), "-t", str(module),
                             "--json").stdout)
    assert as_json["summary"]["drifted"] == 1 and as_json["failed_transcripts"] == 1
    assert cli("replay", str(clean), str(path), "-t", str(module),
               "--allow-drift").exit_code == 0


def test_an_mcp_server_target_drifts_by_its_input_schema(tmp_path):
    """``agentforge serve`` as an MCP target: a recorded call under a parameter name the
    served tool no longer has is drifted (its schema refuses unknown keys), the other one
    replays."""
    import subprocess

    agentforge = Path(sys.executable).parent / "agentforge"
    path = tmp_path / "mcp.jsonl"
    lines = [{"type": "tool_call", "id": "a", "name": "queryCustomer",
              "arguments": '{"customer": "长路", "limit": 5}'},
             {"type": "tool_result", "id": "a", "content": "customer:长路,limit:5"},
             {"type": "tool_call", "id": "b", "name": "queryCustomer",
              "arguments": '{"name": "长路", "limit": 5}'},
             {"type": "tool_result", "id": "b", "content": "customer:长路,limit:5"}]
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                    encoding="utf-8")
    done = subprocess.run(
        [str(agentforge), "replay", str(path), "--json", "-t",
         f"mcp:{agentforge} serve sample_tools.crm:CrmTools"],
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 1, done.stderr
    calls = json.loads(done.stdout)["calls"]
    assert [(call["status"], call.get("drift")) for call in calls] == [
        ("drifted", '"customer" was recorded but queryCustomer has no such parameter '
                    "(it has name)"),
        ("matched", None)]


# -- the pytest items ----------------------------------------------------------------------

pytest_plugins = ["pytester"]


@pytest.mark.parametrize("how", ["fail", "option", "ini"])
def test_pytest_items_fail_on_drift_or_skip_when_allowed(pytester, monkeypatch, how):
    from importlib.metadata import entry_points

    monkeypatch.delenv("AGENTFORGE_TOOLS", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    (pytester.path / "drift_tools.py").write_text(SEARCH, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(pytester.path))
    (pytester.path / "old.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in TRANSCRIPT), encoding="utf-8")
    ini = "[pytest]\nagentforge_tools = drift_tools\n"
    if how == "ini":
        ini += "agentforge_allow_drift = true\n"
    pytester.makeini(ini)
    installed = any(ep.value == "agentforge_cli.integrations.pytest.plugin"
                    for ep in entry_points(group="pytest11"))
    plugin = [] if installed else ["-p", "agentforge_cli.integrations.pytest.plugin"]
    result = pytester.runpytest_subprocess(
        *plugin, "-p", "no:cacheprovider", "--agentforge-replay", "old.jsonl", "-rs",
        *(["--agentforge-allow-drift"] if how == "option" else []))
    message = f"web_search at line 2 drifted, not run: {RENAMED}"
    if how == "fail":
        result.assert_outcomes(passed=1, failed=1, skipped=1)
        result.stdout.fnmatch_lines([f"*agentforge replay: {message}*"])
    else:
        result.assert_outcomes(passed=1, skipped=2)
        result.stdout.fnmatch_lines([f"*{message} (allowed)*"])


@pytest.mark.parametrize(("arguments", "remedies"), [
    ('{"q": "Oslo", "n": 2}', [("--rename-arg", "find.q=city")]),  # one unknown, one missing
    ('{"city": "Oslo", "n": 1, "verbose": true, "x": 1}',
     [("--drop-arg", "find.verbose"), ("--drop-arg", "find.x")]),  # gone, nothing missing
    ('{"city": "Oslo", "verbose": true}', [("--rename-arg", "find.verbose=n")]),  # "it has n"
    ('{"q": "Oslo", "r": 1}', []),  # two unknown keys for one missing parameter: unclear
    ('{"n": 2}', []),  # only missing: no rename to suggest
])
def test_a_drift_suggests_the_migration_it_reads_like(arguments, remedies):
    fit = ArgumentFit("find", ["city", "n"], ["city"], closed=True)
    assert fit.drift(arguments) is not None
    assert fit.remedies(arguments) == remedies


def test_the_replayer_collects_the_remedies_of_the_calls_it_did_not_run():
    @tool
    def find(city: str, n: int = 1) -> str:
        """Find a city."""
        return city

    replayer = Replayer(ToolService().tools(build_local_tools([find])))
    events = [ToolCall(i, None, "find", '{"q": "Oslo"}') for i in range(2)]
    assert [report.status for report in replayer.run(events)] == [DRIFTED, DRIFTED]
    assert list(replayer.remedies) == [("--rename-arg", "find.q=city")]
