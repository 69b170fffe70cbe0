"""Fresh tools per conversation: a class or factory target gives each transcript, and
each conversation of a file of several, tools of its own; a module-level instance,
functions, a module and an MCP server are shared, and the trace says which."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentforge_cli.errors import TargetError
from agentforge_cli.integrations.targets.loading import TargetSource, supply_tools

STORE = """
    import os

    from agentforge_cli import tool


    def _log(what):
        with open(os.environ["STORE_LOG"], "a", encoding="utf-8") as log:
            log.write(what + "\\n")


    _log("import")


    class Store:
        def __init__(self):
            self.items = []

        @tool
        def add(self, item: str) -> str:
            \"\"\"Add an item and answer every item added so far.\"\"\"
            self.items.append(item)
            return ",".join(self.items)


    class Ledger:
        def __init__(self):
            self.total = 0

        @tool
        def credit(self, amount: int) -> int:
            \"\"\"Add to the total and answer it.\"\"\"
            self.total += amount
            return self.total


    @tool
    def ping() -> str:
        \"\"\"Answer pong.\"\"\"
        return "pong"


    def make_store():
        _log("make_store()")
        return Store()


    def make_mixed():
        return [Store, ping]


    _made = []


    def make_other_each_time():
        _made.append(1)
        return Store() if len(_made) % 2 else OtherStore()


    class OtherStore:
        @tool(name="add")
        def put(self, item: str) -> str:
            \"\"\"Add nothing; answer the item.\"\"\"
            return item


    def make_once():
        _made.append(1)
        if len(_made) > 1:
            raise RuntimeError("the database is locked")
        return Store()


    store = Store()
    ledger = Ledger()
"""


def _call(call_id: str, item: str, result: str) -> str:
    return (json.dumps({"type": "tool_call", "id": call_id, "name": "add",
                        "arguments": json.dumps({"item": item})}) + "\n"
            + json.dumps({"type": "tool_result", "id": call_id, "content": result,
                          "is_error": False}) + "\n")


def _conversation(item: str) -> str:
    """One line of a file of many conversations: OpenAI chat, one call of ``add``."""
    return json.dumps({"messages": [
        {"role": "user", "content": f"add {item}"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "add", "arguments": json.dumps({"item": item})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": item}]}) + "\n"


@pytest.fixture
def store(write_module, tmp_path, monkeypatch) -> Path:
    """The store module, two transcripts that each expect an empty store, and a file of
    two conversations that each expect one."""
    monkeypatch.setenv("STORE_LOG", str(tmp_path / "store.log"))
    path = write_module("fresh_store_tools", STORE)
    (tmp_path / "a.jsonl").write_text(_call("c1", "apple", "apple")
                                      + _call("c2", "pear", "apple,pear"), encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(_call("c1", "plum", "plum"), encoding="utf-8")
    (tmp_path / "two.jsonl").write_text(_conversation("fig") + _conversation("kiwi"),
                                        encoding="utf-8")
    return path


def _log(tmp_path: Path) -> list[str]:
    return (tmp_path / "store.log").read_text(encoding="utf-8").splitlines()


# -- the command line -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Store", "make_store()"])
def test_each_transcript_replays_on_tools_of_its_own(cli, store, tmp_path, name):
    result = cli("replay", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                 "-t", f"{store}:{name}")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == f"tools: {name}, made afresh for each conversation"
    assert result.stdout.count("tools:") == 1
    assert "✗" not in result.stdout


def test_each_conversation_of_a_file_replays_on_tools_of_its_own(cli, store, tmp_path):
    result = cli("replay", str(tmp_path / "two.jsonl"), "-t", f"{store}:Store")
    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[0] == "tools: Store, made afresh for each conversation"
    assert result.stdout.count("✓ matched") == 2


def test_a_module_level_instance_is_shared_and_the_trace_says_so(cli, store, tmp_path):
    result = cli("replay", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                 "-t", f"{store}:store")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        f"tools: shared across conversations (module-level instance {store}:store)")
    assert "+ actual:   apple,pear,plum" in result.stdout  # b saw what a added
    conversations = cli("replay", str(tmp_path / "two.jsonl"), "-t", f"{store}:store")
    assert conversations.exit_code == 1
    # the module is imported once per process: its instance holds what both commands added
    assert "+ actual:   apple,pear,plum,fig,kiwi" in conversations.stdout


def test_one_conversation_has_no_tools_line_and_json_stays_as_it_was(cli, store, tmp_path):
    single = cli("replay", str(tmp_path / "a.jsonl"), "-t", f"{store}:Store")
    assert single.exit_code == 0
    assert "tools:" not in single.stdout
    many = cli("replay", str(tmp_path / "a.jsonl"), str(tmp_path / "two.jsonl"),
               "-t", f"{store}:Store", "--json")
    assert many.exit_code == 0, many.stderr
    document = json.loads(many.stdout)
    assert sorted(document) == ["failed_transcripts", "files", "match", "summary",
                                "transcripts"]
    assert document["summary"]["matched"] == 4


def test_the_factory_is_called_per_conversation_and_its_module_imported_once(
        cli, store, tmp_path):
    result = cli("replay", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                 str(tmp_path / "two.jsonl"), "-t", f"{store}:make_store()")
    assert result.exit_code == 0, result.stdout + result.stderr
    log = _log(tmp_path)
    assert log.count("import") == 1
    # one for loading (the tools listed, checked), then one for each of 4 conversations
    assert 4 <= log.count("make_store()") <= 5


def test_a_factory_failing_for_a_later_conversation_stops_the_replay(cli, store, tmp_path):
    result = cli("replay", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                 "-t", f"{store}:make_once()")
    assert result.exit_code == 3
    assert "calling make_once() failed: RuntimeError: the database is locked" in result.stderr
    assert "Traceback" not in result.stderr


# -- the supply -----------------------------------------------------------------------------


def _supply(path: Path, *names: str, **options):
    return supply_tools(TargetSource(specs=tuple(f"{path}:{name}" for name in names),
                                     origin="test", base=path.parent), **options)


def _instance(service, name: str):
    return service.executor(name).definition.call.__self__


def test_fresh_makes_new_instances_without_reading_the_tools_again(store, monkeypatch):
    from agentforge_cli.core.run import executor as executor_module

    supply = _supply(store, "Store")
    read = []
    real = executor_module.define_tool
    monkeypatch.setattr(executor_module, "define_tool",
                        lambda *args, **kwargs: read.append(args) or real(*args, **kwargs))
    first, second = supply.fresh(), supply.fresh()
    assert read == []  # the definitions read when loading are reused
    instances = {id(_instance(s, "add")) for s in (supply.service, first, second)}
    assert len(instances) == 3
    assert first.specifications == supply.service.specifications
    from agentforge_cli.core.define.spec import ToolExecutionRequest

    request = ToolExecutionRequest(name="add", arguments='{"item":"x"}')
    assert first.execute(request).text == "x"
    assert first.execute(request).text == "x,x"
    assert second.execute(request).text == "x"


def test_shared_targets_give_no_fresh(store):
    for name in ("store", "ping"):
        assert _supply(store, name).fresh is None
    module = supply_tools(TargetSource(specs=(str(store),), origin="test", base=store.parent))
    assert module.fresh is None
    assert module.description == f"shared across conversations (module {store})"
    assert _supply(store, "ping").description == (
        f"shared across conversations (function {store}:ping)")


def test_a_mix_renews_the_fresh_part_and_keeps_the_shared_part(store):
    supply = _supply(store, "Store", "ledger")
    assert supply.description == (
        f"Store, made afresh for each conversation; shared across conversations "
        f"(module-level instance {store}:ledger)")
    fresh = supply.fresh()
    assert fresh.names == ["add", "credit"]
    assert fresh.executor("credit") is supply.service.executor("credit")  # the same one
    assert _instance(fresh, "add") is not _instance(supply.service, "add")


def test_a_list_renews_its_classes_and_keeps_its_functions(store):
    supply = _supply(store, "make_mixed()")
    assert supply.description == "make_mixed(), made afresh for each conversation"
    fresh = supply.fresh()
    assert fresh.names == ["add", "ping"]
    assert _instance(fresh, "add") is not _instance(supply.service, "add")
    assert fresh.executor("ping") is supply.service.executor("ping")


def test_fresh_tools_keep_the_loading_options(store):
    from agentforge_cli.core.observe.calllog import LoggingToolExecutor

    supply = _supply(store, "Store", logging=True, strict=True, timeout=5.0)
    executor = supply.fresh().executor("add")
    assert isinstance(executor, LoggingToolExecutor)
    assert (executor.delegate.strict, executor.delegate.timeout) == (True, 5.0)
    plain = _supply(store, "Store").fresh().executor("add")
    assert not isinstance(plain, LoggingToolExecutor)
    assert plain.strict is True
    lenient = _supply(store, "Store", strict=False).fresh().executor("add")
    assert lenient.strict is False


def test_a_factory_giving_other_tools_later_is_read_again(store):
    supply = _supply(store, "make_other_each_time()")
    from agentforge_cli.core.define.spec import ToolExecutionRequest

    request = ToolExecutionRequest(name="add", arguments='{"item":"x"}')
    other = supply.fresh()  # the second call: another class, read as the first was
    assert type(_instance(other, "add")).__name__ == "OtherStore"
    assert other.execute(request).text == "x"
    assert type(_instance(supply.fresh(), "add")).__name__ == "Store"


def test_a_factory_failing_later_raises_a_target_error(store):
    supply = _supply(store, "make_once()")
    with pytest.raises(TargetError, match="calling make_once"):
        supply.fresh()


def test_an_mcp_server_is_shared(store, monkeypatch):
    import sys

    from agentforge_cli.integrations.mcp.client.lifecycle import close_all

    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    agentforge = Path(sys.executable).with_name("agentforge")
    server = f"mcp:{agentforge} serve sample_tools.weather"
    source = TargetSource(specs=(f"{store}:Store", server), origin="test", base=store.parent)
    try:
        supply = supply_tools(source)
        assert supply.description == (
            f"Store, made afresh for each conversation; shared across conversations "
            f"(MCP server mcp:{agentforge} ... (protocol 2026-07-28))")  # never its arguments
        fresh = supply.fresh()
        assert fresh.names == ["add", "getWeather"]
        assert fresh.executor("getWeather") is supply.service.executor("getWeather")
    finally:
        close_all()
