"""``agentforge tools list`` and ``agentforge tools call`` driven through CliRunner."""

from __future__ import annotations

import json

import pytest
from cli_support import CRM, TABLE_LIST
from rich.cells import cell_len

FAILING_TOOLS = """
    import time
    from agentforge_cli import tool

    @tool
    def boom(x: int = 1) -> str:
        \"\"\"Always fails.\"\"\"
        raise ValueError("kaboom")

    @tool
    def slow(seconds: float = 2.0) -> str:
        \"\"\"Sleeps.\"\"\"
        time.sleep(seconds)
        return "done"

    @tool
    def weird() -> str:
        \"\"\"Returns a lone surrogate.\"\"\"
        return "bad\\udcff text"
"""


def test_version(cli):
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout == "agentforge 0.1.0\n"


# -- tools list ------------------------------------------------------------------------------


def test_list_prints_the_readable_table(cli):
    result = cli("tools", "list", CRM)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == TABLE_LIST
    assert "\x1b[" not in result.stdout


def test_list_is_readable_at_80_columns(cli):
    result = cli("tools", "list", "sample_tools.shop", "sample_tools.weather")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(cell_len(line) <= 80 for line in lines)
    assert all(line == line.rstrip() for line in lines)
    assert "[getWeather] 查询城市天气" in lines
    assert "  parameters: { sku: string (required), quantity: integer >= 1 = 1," in lines
    assert "  parameters: { query: string | integer (required), limit: integer 1..50 = 10 }" \
        in lines  # the bounds a schema sets are shown
    assert "[placeOrder] Place an order and take its items out of stock." in lines


def test_a_long_description_continues_indented_under_its_tool(cli, write_module):
    path = write_module("wordy", '''
        from agentforge_cli import tool

        @tool
        def survey(city: str) -> str:
            """Survey the weather of a city, every station of it, and report the mean, the
            spread and the outliers of the last seven days, hour by hour."""
            return city
    ''')
    result = cli("tools", "list", str(path))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("[survey] Survey the weather of a city")
    assert lines[1].startswith("  ") and not lines[1].startswith("   ")
    assert lines[-1] == "  parameters: { city: string (required) }"
    assert all(cell_len(line) <= 80 for line in lines)


def test_list_json_is_the_fixed_shape(cli):
    result = cli("tools", "list", CRM, "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [{
        "name": "queryCustomer",
        "description": "按客户名查询客户信息",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "客户名称"},
                           "limit": {"type": "integer", "description": "返回条数"}},
            "required": ["name", "limit"],
            "additionalProperties": False,
        },
    }]


def test_list_combines_positional_and_option_targets(cli):
    result = cli("tools", "list", CRM, "-t", "sample_tools.weather:getWeather",
                 "--format", "json")
    assert [tool["name"] for tool in json.loads(result.stdout)] == ["queryCustomer",
                                                                   "getWeather"]


@pytest.mark.parametrize("target", [
    "sample_tools/crm.py:CrmTools",
    "sample_tools.weather",
    "sample_tools.weather:getWeather",
])
def test_list_target_forms(cli, target):
    result = cli("tools", "list", target, "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)) == 1


def test_list_target_naming_a_list(cli, write_module):
    path = write_module("listed_tools", """
        from sample_tools.crm import CrmTools
        from sample_tools.weather import getWeather

        TOOLS = [CrmTools, getWeather]
    """)
    result = cli("tools", "list", f"{path}:TOOLS", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert [t["name"] for t in json.loads(result.stdout)] == ["queryCustomer", "getWeather"]


def test_list_unknown_format_is_a_usage_error(cli):
    result = cli("tools", "list", CRM, "--format", "yaml")
    assert result.exit_code == 2
    assert "unknown --format 'yaml'" in result.stderr
    assert result.stdout == ""


# -- tools call ------------------------------------------------------------------------------


def test_call_prints_exactly_what_the_model_receives(cli):
    result = cli("tools", "call", "queryCustomer", '{"name":"长路","limit":"5"}', "-t", CRM)
    assert result.exit_code == 0
    assert result.stdout == "customer:长路,limit:5\n"
    assert result.stderr == ""


def test_call_argument_error_exits_1_with_the_model_text(cli):
    result = cli("tools", "call", "queryCustomer", '{"name":"长路","limit":5.5}', "-t", CRM)
    assert result.exit_code == 1
    assert result.stdout == ('Argument "limit" has non-integer value for int: <5.5> '
                             '(tool "queryCustomer")\n')


def test_call_execution_error_exits_1(cli, write_module):
    path = write_module("failing_tools_a", FAILING_TOOLS)
    result = cli("tools", "call", "boom", "-t", str(path))
    assert result.exit_code == 1
    assert result.stdout == "kaboom\n"


def test_call_unknown_tool_suggests_the_closest_name(cli):
    result = cli("tools", "call", "quryCustomer", "{}", "-t", CRM)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert 'Unknown tool "quryCustomer". Did you mean: queryCustomer?' in result.stderr


def test_call_json_object(cli):
    result = cli("tools", "call", "syncInventory", '{"api_token":"wh-1","warehouse_id":"3"}',
                 "-t", "sample_tools.shop", "--json", "--memory-id", "s-1")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["name"] == "syncInventory"
    assert data["result"] == "warehouse 3: 4 SKUs in sync"
    assert data["is_error"] is False
    assert data["arguments"] == {"api_token": "***", "warehouse_id": 3}
    assert data["memory_id"] == "s-1"


def test_call_json_bound_values_are_json_safe(cli):
    result = cli("tools", "call", "getPrice", '{"sku":"TEA-001","quantity":2,"discount":"0.9"}',
                 "-t", "sample_tools.shop", "--json")
    data = json.loads(result.stdout)
    assert data["result"] == "230.40"
    assert data["arguments"] == {"sku": "TEA-001", "quantity": 2, "discount": 0.9}


def test_call_json_on_error(cli):
    result = cli("tools", "call", "queryCustomer", '{"name":"a","limit":"x"}', "-t", CRM,
                 "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["is_error"] is True
    assert data["arguments"] is None
    assert data["result"].startswith('Argument "limit"')


def test_call_explain_goes_to_stderr(cli):
    result = cli("tools", "call", "queryCustomer", '{"name":"长路","limit":"5"}', "-t", CRM,
                 "--explain")
    assert result.exit_code == 0
    assert result.stdout == "customer:长路,limit:5\n"
    assert "parameter" in result.stderr
    assert "JSON string <5> (a JSON string) coerced to int" in result.stderr


def test_call_explain_masks_secrets_and_shows_failures(cli):
    result = cli("tools", "call", "syncInventory", '{"api_token":"wh-secret","warehouse_id":0}',
                 "-t", "sample_tools.shop", "--explain")
    assert result.exit_code == 1
    assert "wh-secret" not in result.stderr + result.stdout
    assert "binding failed" in result.stderr


def test_call_explain_in_json(cli):
    result = cli("tools", "call", "queryCustomer", '{"name":"长路"}', "-t", CRM,
                 "--explain", "--json", "--lenient")
    data = json.loads(result.stdout)
    rows = {row["parameter"]: row for row in data["explain"]}
    assert rows["limit"]["present"] is False
    assert rows["limit"]["value"] == 0
    assert "missing" in rows["limit"]["rule"]
    assert result.stderr == ""


def test_call_log_renders_request_and_response_on_stderr(cli):
    result = cli("tools", "call", "queryCustomer", '{"name":"长路","limit":5}', "-t", CRM,
                 "--log", "--memory-id", "session-1")
    assert result.exit_code == 0
    assert result.stdout == "customer:长路,limit:5\n"
    assert "=== tool request ===" in result.stderr
    assert "memory id: session-1" in result.stderr
    assert "result:   customer:长路,limit:5" in result.stderr
    assert " ms" in result.stderr


def test_call_log_never_hard_wraps_a_long_result(cli, write_module):
    path = write_module("long_result", '''
        import json
        from agentforge_cli import tool

        @tool
        def report(note: str = "") -> str:
            """A long JSON result."""
            return json.dumps({"items": [{"sku": f"SKU-{i:04d}", "qty": i} for i in range(12)],
                               "note": "x" * 90})
        ''')
    result = cli("tools", "call", "report", "{}", "-t", str(path), "--log")
    assert result.exit_code == 0
    [line] = [line for line in result.stderr.splitlines() if line.startswith("result:")]
    assert len(line) > 80
    assert json.loads(line.removeprefix("result:").strip()) == json.loads(result.stdout)
    arguments = next(line for line in result.stderr.splitlines() if line.startswith("argu"))
    assert arguments == "arguments: {}"


def test_call_reads_arguments_from_stdin(cli):
    result = cli("tools", "call", "queryCustomer", "-", "-t", CRM,
                 input='{"name":"长路","limit":5}\n')
    assert result.stdout == "customer:长路,limit:5\n"


def test_call_reads_arguments_from_a_file(cli, tmp_path):
    args = tmp_path / "args.json"
    args.write_text('{"name":"长路","limit":7}', encoding="utf-8")
    result = cli("tools", "call", "queryCustomer", f"@{args}", "-t", CRM)
    assert result.stdout == "customer:长路,limit:7\n"


def test_call_missing_arguments_file_is_a_usage_error(cli, tmp_path):
    result = cli("tools", "call", "queryCustomer", f"@{tmp_path / 'none.json'}", "-t", CRM)
    assert result.exit_code == 2
    assert "cannot read the arguments file" in result.stderr


def test_call_is_strict_by_default_and_lenient_when_asked(cli):
    for given in ((), ("--strict",)):
        result = cli("tools", "call", "queryCustomer", '{"name":"长路"}', "-t", CRM, *given)
        assert result.exit_code == 1
        assert result.stdout == ('Required parameter "limit" of tool "queryCustomer" is '
                                 "missing; queryCustomer takes name (string), limit (integer)\n")
    lenient = cli("tools", "call", "queryCustomer", "-t", CRM, "--lenient")
    assert (lenient.exit_code, lenient.stdout) == (0, "customer:None,limit:0\n")


def test_call_timeout(cli, write_module):
    path = write_module("failing_tools_b", FAILING_TOOLS)
    result = cli("tools", "call", "slow", '{"seconds": 1}', "-t", str(path), "--timeout", "0.05")
    assert result.exit_code == 1
    assert result.stdout == 'Tool "slow" timed out after 0.05 s\n'


def test_call_timeout_must_be_positive(cli):
    result = cli("tools", "call", "queryCustomer", "-t", CRM, "--timeout", "0")
    assert result.exit_code == 2


def test_call_propagate_errors(cli, write_module):
    path = write_module("failing_tools_c", FAILING_TOOLS)
    result = cli("tools", "call", "boom", "-t", str(path), "--propagate-errors")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "ToolExecutionError: kaboom" in result.stderr
    assert "caused by ValueError: kaboom" in result.stderr
    assert "Traceback" not in result.stderr


def test_call_propagate_errors_json(cli, write_module):
    path = write_module("failing_tools_d", FAILING_TOOLS)
    result = cli("tools", "call", "boom", "-t", str(path), "--propagate-errors", "--json")
    data = json.loads(result.stdout)
    assert data["is_error"] is True
    assert data["error"]["cause"] == "ValueError: kaboom"


def test_call_wrap_argument_errors(cli):
    result = cli("tools", "call", "queryCustomer", '{"name":"a","limit":"x"}', "-t", CRM,
                 "--wrap-argument-errors")
    assert result.exit_code == 1
    assert result.stdout.startswith('Argument "limit"')


def test_bad_option_is_a_usage_error(cli):
    result = cli("tools", "call", "queryCustomer", "-t", CRM, "--bogus")
    assert result.exit_code == 2


def test_unencodable_output_is_escaped_not_crashed(cli, write_module):
    path = write_module("failing_tools_e", FAILING_TOOLS)
    result = cli("tools", "call", "weird", "-t", str(path))
    assert result.exit_code == 0
    assert result.stdout == "bad\\udcff text\n"
    data = json.loads(cli("tools", "call", "weird", "-t", str(path), "--json").stdout)
    assert data["result"] == "bad\udcff text"


def test_debug_shows_the_traceback(cli):
    plain = cli("tools", "list", "sample_tools.nope")
    assert plain.exit_code == 3
    assert "Traceback" not in plain.stderr
    debug = cli("--debug", "tools", "list", "sample_tools.nope")
    assert debug.exit_code == 3
    assert "Traceback" in debug.stderr
    assert "ModuleNotFoundError" in debug.stderr


TICKETS = "docs/examples/ticket_tools.py"
TICKET_NOTE = ("\"customer\" was missing and was passed as None; then: 'NoneType' object has "
               "no attribute 'email'")


def test_call_failing_after_a_missing_required_argument_says_so_first(cli):
    result = cli("tools", "call", "create_ticket", '{"subject":"Refund"}', "-t", TICKETS,
                 "--lenient")
    assert result.exit_code == 1
    assert result.stdout == TICKET_NOTE + "\n"
    given = cli("tools", "call", "create_ticket",
                '{"subject":"Refund","customer":{"email":"a@b.c"}}', "-t", TICKETS)
    assert (given.exit_code, given.stdout) == (0, "ticket for a@b.c: Refund\n")



def test_debug_shows_the_tools_traceback_on_stderr(cli, write_module):
    path = write_module("failing_tools_d", FAILING_TOOLS)
    result = cli("--debug", "tools", "call", "boom", "-t", str(path))
    assert (result.exit_code, result.stdout) == (1, "kaboom\n")
    assert "Traceback (most recent call last)" in result.stderr
    assert 'raise ValueError("kaboom")' in result.stderr
    assert result.stderr.rstrip().endswith("ValueError: kaboom")
    as_json = cli("--debug", "tools", "call", "boom", "-t", str(path), "--json")
    assert json.loads(as_json.stdout)["result"] == "kaboom"
    assert "Traceback" in as_json.stderr
    quiet = cli("tools", "call", "boom", "-t", str(path))
    assert (quiet.stdout, quiet.stderr) == ("kaboom\n", "")


MIXED = '''
from agentforge_cli import tool

@tool
def good(a: int) -> int:
    """Good."""
    return a

@tool
def tag(*labels: str) -> str:
    """Tag."""
    return ",".join(labels)
'''


def test_a_tool_that_cannot_be_defined_is_left_out_and_named(cli, write_module):
    path = str(write_module("mixed_tools", MIXED))
    listed = cli("tools", "list", path, "--format", "json")
    assert listed.exit_code == 0, listed.output
    assert [row["name"] for row in json.loads(listed.stdout)] == ["good"]
    assert ('warning: a tool is left out, it cannot be defined: mixed_tools.tag: parameter '
            '"labels": *labels is not supported') in listed.stderr
    called = cli("tools", "call", "good", '{"a": 2}', "-t", path)
    assert (called.exit_code, called.stdout) == (0, "2\n")
    checked = cli("tools", "check", path)  # the check is the gate: it names it and fails
    assert checked.exit_code == 3
    assert 'mixed_tools.tag: parameter "labels"' in checked.stderr


def test_a_module_whose_every_tool_fails_is_still_an_error(cli, write_module):
    path = str(write_module("only_bad", MIXED.split("@tool\ndef tag")[0].replace(
        "def good(a: int)", "def good(*a: int)")))
    done = cli("tools", "list", path)
    assert done.exit_code == 3
    assert "cannot load the tools of" in done.stderr


@pytest.mark.parametrize(("schema", "label"), [
    ({"type": "integer", "minimum": 1, "maximum": 100}, "integer 1..100"),
    ({"type": "number", "minimum": 0}, "number >= 0"),
    ({"type": "number", "exclusiveMinimum": 0, "maximum": 1}, "number > 0, <= 1"),
    ({"type": "integer", "exclusiveMaximum": 10}, "integer < 10"),
    ({"type": "string", "minLength": 1, "maxLength": 80}, "string 1..80 chars"),
    ({"type": "array", "items": {"type": "string"}, "maxItems": 5},
     "array<string> <= 5 items"),
    ({"type": "integer", "minimum": -2147483648, "maximum": 2147483647}, "integer"),  # Int32
    ({"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}],
      "minItems": 2, "maxItems": 2}, "[number, number]"),
    ({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}, "integer >= 1 | null"),
])
def test_the_readable_list_shows_the_bounds_a_schema_sets(schema, label):
    from agentforge_cli.core.define.schema_labels import schema_label

    assert schema_label(schema) == label


def test_each_parameter_s_description_is_shown_under_the_parameters(cli, write_module):
    path = write_module("described", '''
        from typing import Annotated

        from agentforge_cli import P, tool

        @tool
        def survey(city: Annotated[str, P("The city whose stations are surveyed, by its "
                                          "official name, in any letter case, with or "
                                          "without accents")],
                   days: int = 7) -> str:
            """Survey the weather."""
            return city
    ''')
    result = cli("tools", "list", str(path))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1] == "  parameters: { city: string (required), days: integer = 7 }"
    assert lines[2].startswith("    city: The city whose stations are surveyed")
    assert len(lines) > 3 and all(line.startswith("      ") for line in lines[3:])
    assert not any("days:" in line for line in lines[2:])  # no description, no line
    assert all(cell_len(line) <= 80 for line in lines)
