"""Finding and loading targets: forms, fallback order, and every way loading fails."""

from __future__ import annotations

import json

import pytest
from cli_support import CRM

from agentforge_cli.cli.errors import LoadError, UsageError
from agentforge_cli.errors import AgentForgeError, TargetConfigError, TargetError
from agentforge_cli.integrations.targets.loading import ENV_VAR, find_targets


def test_command_line_wins(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.agentforge]\ntools = ["b"]\n')
    source = find_targets(["a", "a", " "], cwd=tmp_path, environ={ENV_VAR: "c"})
    assert source.specs == ("a",)
    assert source.origin == "command line"


def test_environment_then_pyproject(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.agentforge]\ntools = ["b", "c"]\n')
    assert find_targets([], cwd=tmp_path, environ={ENV_VAR: "x, y,,"}).specs == ("x", "y")
    nested = tmp_path / "src" / "pkg"
    nested.mkdir(parents=True)
    source = find_targets(None, cwd=nested, environ={})
    assert source.specs == ("b", "c")
    assert source.base == tmp_path


def test_nothing_anywhere_is_a_usage_error(tmp_path):
    with pytest.raises(TargetConfigError) as info:
        find_targets([], cwd=tmp_path, environ={})
    assert ENV_VAR in info.value.hint
    assert "[tool.agentforge]" in info.value.hint


def test_pyproject_without_the_table_is_no_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.other]\nk = 1\n')
    with pytest.raises(TargetConfigError, match="no tool target given"):
        find_targets([], cwd=tmp_path, environ={})


def test_bad_pyproject_is_a_usage_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.agentforge]\ntools = 5\n")
    with pytest.raises(TargetConfigError, match="list of strings"):
        find_targets([], cwd=tmp_path, environ={})


def test_an_unknown_key_in_the_table_is_an_error_with_a_suggestion(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.agentforge]\ntool = ["a:B"]\n')
    with pytest.raises(TargetConfigError, match=r"unknown key 'tool' in \[tool\.agentforge\]"
                       ) as info:
        find_targets([], cwd=tmp_path, environ={})
    assert "providers, replay, serve, strict, timeout, tools" in info.value.message
    assert info.value.hint == "did you mean 'tools'?"


def test_an_unknown_key_exits_2_in_the_cli(cli, tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.agentforge]\ntool = ["a:B"]\n')
    monkeypatch.chdir(tmp_path)
    result = cli("tools", "list")
    assert result.exit_code == 2
    assert "unknown key 'tool'" in result.stderr
    assert "did you mean 'tools'?" in result.stderr


def test_cli_without_any_target_exits_2(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("tools", "list")
    assert result.exit_code == 2
    assert "no tool target given" in result.stderr
    assert ENV_VAR in result.stderr
    assert cli("tools", "call", "queryCustomer").exit_code == 2
    assert cli("replay", "t.jsonl").exit_code in (2, 3)


def test_environment_variable_in_the_cli(cli, monkeypatch):
    monkeypatch.setenv(ENV_VAR, f"{CRM},sample_tools.weather")
    result = cli("tools", "list", "--format", "json")
    assert [t["name"] for t in json.loads(result.stdout)] == ["queryCustomer", "getWeather"]


def test_pyproject_relative_file_targets(cli, tmp_path, monkeypatch, write_module):
    write_module("project_tools", """
        from agentforge_cli import tool

        @tool
        def ping() -> str:
            \"\"\"Answer pong.\"\"\"
            return "pong"
    """)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentforge]\ntools = ["project_tools.py"]\n')
    (tmp_path / "deep").mkdir()
    monkeypatch.chdir(tmp_path / "deep")
    result = cli("tools", "call", "ping")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "pong\n"


BROKEN = {
    "missing module": ("sample_tools.nope", "no module named 'sample_tools.nope'"),
    "missing attribute": ("sample_tools.crm:CrmTool", "has no attribute 'CrmTool'"),
    "missing file": ("nowhere/tools.py", "no such file"),
    "no tool in module": ("sample_tools.crm", "yields no tool"),
    "no tool in value": ("json:dumps", "Tools cannot be defined"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_load_failures_exit_3_without_traceback(cli, case):
    target, message = BROKEN[case]
    result = cli("tools", "list", target)
    assert result.exit_code == 3, (case, result.stdout, result.stderr)
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_missing_attribute_suggests_close_names(cli):
    result = cli("tools", "list", "sample_tools.crm:CrmTool")
    assert "did you mean: CrmTools?" in result.stderr


def test_module_with_only_a_class_suggests_the_class_target(cli):
    result = cli("tools", "list", "sample_tools.crm")
    assert "target sample_tools.crm:CrmTools" in result.stderr


@pytest.mark.parametrize(("source", "message"), [
    ("def broken(:\n    pass\n", "syntax error in"),
    ("raise RuntimeError('no database configured')\n",
     "RuntimeError: no database configured"),
    ("import surely_not_installed_module_xyz\n", "surely_not_installed_module_xyz"),
])
def test_import_failures_show_the_module_error(cli, tmp_path, source, message):
    path = tmp_path / "bad_tools_mod.py"
    path.write_text(source, encoding="utf-8")
    result = cli("tools", "list", str(path))
    assert result.exit_code == 3
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 3
    assert "Traceback" not in result.stderr


def test_an_import_failure_names_the_file_and_line_and_points_at_debug(cli, write_module):
    path = write_module("priority_tools", """
        import enum

        class Level(enum.Enum):
            HIGH = 1

        DEFAULT = Level.LOW
    """)
    result = cli("tools", "list", str(path))
    assert result.exit_code == 3
    assert "AttributeError: LOW" in result.stderr
    # the user's line, not enum's internals where the exception was raised
    assert "priority_tools.py, line 7: DEFAULT = Level.LOW" in result.stderr
    assert "--debug" in result.stderr
    assert "enum.py" not in result.stderr


def test_class_targets(cli, write_module):
    path = write_module("class_tools", """
        from agentforge_cli import tool

        class Easy:
            @tool
            def hello(self) -> str:
                return "hi"

        class Hard:
            def __init__(self, dsn):
                self.dsn = dsn

            @tool
            def query(self) -> str:
                return self.dsn

        class Exploding:
            def __init__(self):
                raise OSError("cannot connect")

            @tool
            def other(self) -> str:
                return ""
    """)
    assert cli("tools", "call", "hello", "-t", f"{path}:Easy").stdout == "hi\n"
    hard = cli("tools", "list", f"{path}:Hard")
    assert hard.exit_code == 3
    assert "class Hard needs constructor arguments (dsn)" in hard.stderr
    exploding = cli("tools", "list", f"{path}:Exploding")
    assert exploding.exit_code == 3
    assert "OSError: cannot connect" in exploding.stderr


def test_duplicate_tool_names_across_targets(cli):
    result = cli("tools", "list", CRM, "sample_tools/crm.py:CrmTools")
    assert result.exit_code == 0  # the same file and module: loaded once, one target
    result = cli("tools", "list", CRM, "-t", "sample_tools.crm:CrmTools", "--format", "json")
    assert len(json.loads(result.stdout)) == 1


def test_duplicate_definitions_are_a_load_error(cli, write_module):
    path = write_module("dupe_tools", """
        from agentforge_cli import tool

        @tool(name="queryCustomer")
        def other(name: str) -> str:
            return name
    """)
    result = cli("tools", "list", CRM, str(path))
    assert result.exit_code == 3
    assert "Duplicated definition for tool: queryCustomer" in result.stderr
    # both definitions, and the way out
    assert "sample_tools.crm:CrmTools.queryCustomer" in result.stderr
    assert "dupe_tools:other" in result.stderr
    assert "@tool(name=...)" in result.stderr


def test_malformed_target_strings(cli):
    assert cli("tools", "list", "sample_tools.crm:").exit_code == 2
    assert cli("tools", "list", "not a module").exit_code == 3


def test_load_error_classes_have_exit_codes():
    assert LoadError("x").exit_code == 3
    assert UsageError("x").exit_code == 2


def test_target_errors_belong_to_the_one_exception_tree():
    # the loader is shared by the CLI, the plugin and the MCP server: it raises core errors
    assert issubclass(TargetConfigError, TargetError)
    assert issubclass(TargetError, AgentForgeError)
    assert TargetError("x", hint="y").hint == "y"


# -- factory targets: Name() --------------------------------------------------------------

FACTORIES = """
    from agentforge_cli import tool

    class Counter:
        def __init__(self, start=0):
            self.count = start

        @tool
        def bump(self) -> int:
            \"\"\"Add one to the count and answer it.\"\"\"
            self.count += 1
            return self.count

    @tool
    def ping() -> str:
        \"\"\"Answer pong.\"\"\"
        return "pong"

    def make_counter():
        return Counter(start=41)

    def make_all():
        return [Counter, ping]

    class Registry:
        @staticmethod
        def build():
            return Counter(start=9)

    def make_none():
        return None

    def make_nothing():
        return []

    def make_text():
        return "bump"

    def make_broken():
        raise RuntimeError("no database configured")

    def make_exit():
        raise SystemExit(4)

    def make_with(dsn, *rest, **options):
        return Counter()

    async def make_later():
        return Counter()

    counter = Counter()
"""


@pytest.fixture
def factories(write_module):
    return write_module("factory_targets", FACTORIES)


def test_a_factory_target_is_called_and_its_tools_are_used(cli, factories):
    result = cli("tools", "call", "bump", "-t", f"{factories}:make_counter()")
    assert (result.exit_code, result.stdout) == (0, "42\n"), result.stderr
    # a list is read as a :Name list is: its class instantiated, its function kept
    listed = cli("tools", "list", f"{factories}:make_all()", "--format", "json")
    assert [tool["name"] for tool in json.loads(listed.stdout)] == ["bump", "ping"]
    # a dotted name reaches into an object; a class with () is a factory of itself
    assert cli("tools", "call", "bump", "-t", f"{factories}:Registry.build()").stdout == "10\n"
    assert cli("tools", "call", "bump", "-t", f"{factories}:Counter()").stdout == "1\n"


def test_without_parentheses_a_target_means_what_it_meant(cli, factories):
    # a function target is a tool itself: the factory, not what it makes
    result = cli("tools", "list", f"{factories}:make_counter", "--format", "json")
    assert [tool["name"] for tool in json.loads(result.stdout)] == ["make_counter"]
    assert cli("tools", "call", "bump", "-t", f"{factories}:counter").stdout == "1\n"


def test_every_command_takes_a_factory_target(cli, factories, monkeypatch):
    target = f"{factories}:make_counter()"
    assert cli("tools", "list", target).exit_code == 0
    assert cli("tools", "check", target).exit_code == 0
    fuzzed = cli("tools", "fuzz", target, "--examples", "3")
    assert fuzzed.exit_code == 0, fuzzed.stderr
    from agentforge_cli.integrations.mcp.server import tool_server as mcp_server

    served: list = []
    monkeypatch.setattr(mcp_server, "run_stdio",
                        lambda service, **options: served.append(service))
    assert cli("serve", target).exit_code == 0
    assert [service.names for service in served] == [["bump"]]


FACTORY_FAILURES = {
    # target name -> (exit code, what stderr says)
    "make_none()": (3, "yields no tool: make_none() returned None, which holds no @tool "
                       "function"),
    "make_nothing()": (3, "make_nothing() returned an empty list"),
    "make_text()": (3, "make_text() returned a str object"),
    "make_broken()": (3, "calling make_broken() failed: RuntimeError: no database "
                         "configured"),
    "make_exit()": (3, "calling make_exit() failed: SystemExit: 4"),
    "make_with()": (3, "make_with() needs arguments (dsn); a factory target is called "
                       "without arguments"),
    "make_later()": (3, "make_later() returned an awaitable; a factory target must be a "
                        "plain function, not async def"),
    "counter()": (3, "counter is a Counter object, which cannot be called"),
    "missing()": (3, "has no attribute 'missing'"),
    "make_counter(5)": (2, "passes arguments (5) to make_counter; a factory target is "
                           "called without arguments"),
    "make_counter(": (2, "parentheses may only end the name"),
    "make_counter()()": (2, "parentheses may only end the name"),
    "make(x).bump": (2, "parentheses may only end the name"),
    "()": (2, "parentheses may only end the name"),
}


@pytest.mark.parametrize("name", sorted(FACTORY_FAILURES))
def test_a_factory_that_cannot_give_tools_is_a_clear_error(cli, factories, name):
    code, message = FACTORY_FAILURES[name]
    target = f"{factories}:{name}"
    result = cli("tools", "list", target)
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert message in result.stderr
    assert f"{target}'" in result.stderr  # the message names the target
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_factory_errors_say_what_to_do(cli, factories):
    broken = cli("tools", "list", f"{factories}:make_broken()").stderr
    assert "factory_targets.py, line 40: raise RuntimeError" in broken  # the user's line
    assert "--debug" in broken
    assert "return an instance with @tool methods" in cli(
        "tools", "list", f"{factories}:make_none()").stderr
    assert "drop the parentheses to use counter as it is" in cli(
        "tools", "list", f"{factories}:counter()").stderr
    assert "def make_tools(): return Tools(5)" in cli(
        "tools", "list", f"{factories}:make_counter(5)").stderr
    assert "asyncio.run" in cli("tools", "list", f"{factories}:make_later()").stderr


def test_a_factory_is_named_after_the_module(cli):
    result = cli("tools", "list", "sample_tools.crm()")
    assert result.exit_code == 3
    assert "package.module:make_tools()" in result.stderr


def test_one_tool_reached_through_two_targets_is_loaded_once(cli, write_module):
    reexport = write_module("weather_again", "from sample_tools.weather import getWeather\n")
    result = cli("tools", "list", "sample_tools.weather", "sample_tools.weather:getWeather",
                 str(reexport), "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert [tool["name"] for tool in json.loads(result.stdout)] == ["getWeather"]
    other = write_module("weather_other", '''
from agentforge_cli import tool

@tool(name="getWeather")
def get_weather(city: str) -> str:
    return city
''')
    clash = cli("tools", "list", "sample_tools.weather", str(other))
    assert clash.exit_code == 3
    assert "Duplicated definition for tool: getWeather" in clash.stderr


def test_a_directory_target_says_it_is_one_and_how_to_name_a_module(cli):
    package = cli("tools", "list", "sample_tools/")
    assert package.exit_code == 3
    assert package.stderr == (
        "error: cannot load target 'sample_tools/': sample_tools/ is a directory, not a "
        "Python file\n"
        "  it is a package: name one of its modules by file (sample_tools/crm.py) or by "
        "dotted name (sample_tools.crm, sample_tools.crm:Name)\n")
    folder = cli("tools", "list", "docs/examples")
    assert folder.exit_code == 3
    assert folder.stderr == (
        "error: cannot load target 'docs/examples': docs/examples is a directory, not a "
        "Python file\n"
        "  name a Python file in it, such as docs/examples/cluster_tools.py\n")
