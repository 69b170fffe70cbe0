"""Parsing the argument string into a dict: strict JSON, then repair, then refusal."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from agentforge_cli import ToolExecutionRequest, ToolService, build_local_tools, tool
from agentforge_cli.core.bind.arguments import DEFAULT_MAX_ARGUMENT_CHARS, parse_arguments
from agentforge_cli.core.run.executor import LocalToolExecutor
from agentforge_cli.errors import ArgumentError


@tool
def echo(payload: dict | None = None, note: str = "") -> dict:
    """Return what it was given."""
    return {"payload": payload, "note": note}


@tool
def amounts(price: Decimal, count: int) -> str:
    return f"{type(price).__name__}:{price}|{type(count).__name__}:{count}"


# --- 1. empty / blank / null -------------------------------------------------------------

@pytest.mark.parametrize("arguments", [None, "", " ", "\n  \t", "null", "  null  "])
def test_empty_blank_or_null_is_no_arguments(arguments):
    assert parse_arguments(arguments) == {}


# --- 2. strict JSON, whole object encoded twice ------------------------------------------

@pytest.mark.parametrize(("arguments", "expected"), [
    ('{"a":1}', {"a": 1}),
    ('  {"a": "x"}  ', {"a": "x"}),
    ('{"a":{"b":[1,2,{"c":null}]}}', {"a": {"b": [1, 2, {"c": None}]}}),
    ('{"名":"长路"}', {"名": "长路"}),
    ('{"a":"\\u957f"}', {"a": "长"}),
    ('{"a":1,"a":2}', {"a": 2}),
    ("{}", {}),
])
def test_strict_json_object(arguments, expected):
    assert parse_arguments(arguments) == expected


@pytest.mark.parametrize("arguments", [
    json.dumps(json.dumps({"name": "长路", "limit": 5}, ensure_ascii=False),
               ensure_ascii=False),
    json.dumps(json.dumps({"name": "长路", "limit": 5})),
    json.dumps(" " + json.dumps({"name": "长路", "limit": 5}) + " "),
])
def test_whole_object_encoded_twice_is_decoded_once_more(arguments):
    assert parse_arguments(arguments) == {"name": "长路", "limit": 5}


# --- 3. repair ---------------------------------------------------------------------------

@pytest.mark.parametrize(("arguments", "expected"), [
    ('{"a":1,}', {"a": 1}),
    ('{"a":[1,2,],}', {"a": [1, 2]}),
    ('{"a":{"b":1,},"c":[{"d":2,},],}', {"a": {"b": 1}, "c": [{"d": 2}]}),
    ('{"a":1 ,\n\t}', {"a": 1}),
])
def test_trailing_commas_are_removed(arguments, expected):
    assert parse_arguments(arguments) == expected


@pytest.mark.parametrize(("arguments", "expected"), [
    ('{"a":"a,}",}', {"a": "a,}"}),
    ('{"a":"x,]","b":[1,],}', {"a": "x,]", "b": [1]}),
    ('{"a":"say \\"hi,}\\" ,]",}', {"a": 'say "hi,}" ,]'}),
    ('{"a,}":1,}', {"a,}": 1}),
])
def test_comma_inside_a_string_literal_is_data(arguments, expected):
    assert parse_arguments(arguments) == expected


def test_valid_json_with_comma_in_string_is_untouched():
    assert parse_arguments('{"a":"a,}"}') == {"a": "a,}"}
    assert parse_arguments('{"a":"1,]"}') == {"a": "1,]"}


@pytest.mark.parametrize(("arguments", "expected"), [
    ('"{\\"name\\":\\"长路\\",\\"limit\\":5}"', {"name": "长路", "limit": 5}),
    ("'{\"name\":\"长路\",\"limit\":5}'", {"name": "长路", "limit": 5}),
    ('"{\\"a\\":1,}"', {"a": 1}),
    ('"{"a":1}"', {"a": 1}),
])
def test_object_wrapped_in_quotes(arguments, expected):
    assert parse_arguments(arguments) == expected


# --- 4. anything else is an argument error ---------------------------------------------

@pytest.mark.parametrize(("arguments", "fragments"), [
    ("[1, 2]", ["array", "<[1,2]>"]),
    ("[]", ["array"]),
    ("5", ["integer", "<5>"]),
    ("5.5", ["number", "5.5"]),
    ("true", ["boolean", "<true>"]),
    ('"hello"', ["string", "hello"]),
    ('"[1,2]"', ["string"]),
    ("hello", ["hello", "column 1"]),
    ('{"a":1', ["column 7"]),
    ('{"a":}', ["column 6"]),
    ("{'a': 1}", ["column 2"]),
    ('{"a":1, // comment\n}', ["comment"]),
])
def test_non_objects_and_garbage_are_refused_clearly(arguments, fragments):
    with pytest.raises(ArgumentError) as info:
        parse_arguments(arguments)
    message = str(info.value)
    assert message.startswith("Arguments")
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"


def test_unparseable_message_names_what_was_received_and_where():
    with pytest.raises(ArgumentError) as info:
        parse_arguments('{"name": "长路" "limit": 5}')
    message = str(info.value)
    assert "长路" in message  # what was received
    assert "char 14" in message or "column 15" in message  # where parsing stopped


def test_python_dict_passes_through():
    assert parse_arguments({"a": 1}) == {"a": 1}


def test_other_python_values_are_refused():
    with pytest.raises(ArgumentError):
        parse_arguments(42)  # type: ignore[arg-type]


# --- 5. hostile inputs -------------------------------------------------------------------

HOSTILE = [
    pytest.param('{"a": NaN}', id="NaN"),
    pytest.param('{"a": Infinity}', id="Infinity"),
    pytest.param('{"a": -Infinity}', id="-Infinity"),
    pytest.param('{"a": [1, NaN,]}', id="NaN-in-repaired-text"),
    pytest.param('"{\\"a\\": NaN}"', id="NaN-double-encoded"),
    pytest.param("[" * 100_000 + "]" * 100_000, id="deep-array"),
    pytest.param('{"a":' + "[" * 100_000 + "]" * 100_000 + "}", id="deep-in-object"),
    pytest.param('{"a":' + '{"a":' * 100_000 + "1" + "}" * 100_001, id="deep-objects"),
    pytest.param('{"a":' + "[" * 100_000 + "]" * 100_000 + ",}", id="deep-with-trailing-comma"),
    pytest.param(json.dumps('{"a":' + "[" * 100_000 + "]" * 100_000 + "}"),
                 id="deep-double-encoded"),
    pytest.param('{"a": ' + "9" * 5000 + "}", id="5000-digit-integer"),
    pytest.param('{"a": -' + "1" * 5000 + "}", id="5000-digit-negative"),
    pytest.param('{"a": [' + "7" * 5000 + ",]}", id="5000-digit-in-repaired-text"),
    pytest.param('{"a":1}{"b":2}', id="two-objects"),
    pytest.param('{"a":1} {"b":2}', id="two-objects-spaced"),
    pytest.param('{"a":1}x', id="trailing-garbage"),
    pytest.param("\x00", id="nul"),
    pytest.param("{" * 50_000, id="unclosed-braces"),
    pytest.param('"' * 10_001, id="quotes"),
]


@pytest.mark.parametrize("arguments", HOSTILE)
def test_hostile_input_is_an_argument_error(arguments):
    with pytest.raises(ArgumentError) as info:
        parse_arguments(arguments)
    assert type(info.value) is ArgumentError
    message = str(info.value)
    assert message.startswith("Arguments")
    assert len(message) < 2000  # never echoes a huge input back in full


@pytest.mark.parametrize("arguments", HOSTILE)
def test_hostile_input_through_the_service_is_an_error_result(arguments):
    service = ToolService().tools(build_local_tools([echo]))
    result = service.execute(ToolExecutionRequest(id="h", name="echo", arguments=arguments))
    assert result.is_error is True
    assert result.text.startswith("Arguments")


def test_messages_for_hostile_inputs_say_what_is_wrong():
    cases = {
        '{"a": NaN}': "NaN",
        '{"a": Infinity}': "Infinity",
        "[" * 100_000 + "]" * 100_000: "nested too deeply",
        '{"a": ' + "9" * 5000 + "}": "digits",
    }
    for arguments, fragment in cases.items():
        with pytest.raises(ArgumentError) as info:
            parse_arguments(arguments)
        assert fragment in str(info.value)


def test_argument_string_over_the_size_limit():
    text = json.dumps({"a": "x" * 200})
    assert parse_arguments(text, max_chars=len(text)) == {"a": "x" * 200}
    with pytest.raises(ArgumentError) as info:
        parse_arguments(text, max_chars=100)
    message = str(info.value)
    assert message.startswith("Arguments")
    assert "100" in message and str(len(text)) in message


def test_default_size_limit_applies():
    text = '{"a": "' + "x" * DEFAULT_MAX_ARGUMENT_CHARS + '"}'
    with pytest.raises(ArgumentError):
        parse_arguments(text)


def test_executor_size_limit_is_configurable():
    executor = LocalToolExecutor(echo, max_argument_chars=50)
    small = executor.execute(ToolExecutionRequest(name="echo", arguments='{"note":"hi"}'))
    assert small.text == '{"payload":null,"note":"hi"}'
    with pytest.raises(ArgumentError):
        executor.execute(ToolExecutionRequest(name="echo",
                                              arguments=json.dumps({"note": "y" * 60})))


def test_size_limit_through_the_service_is_an_error_result():
    executor = LocalToolExecutor(echo, max_argument_chars=50)
    service = ToolService().tools({executor.specification: executor})
    result = service.execute(ToolExecutionRequest(name="echo",
                                                  arguments=json.dumps({"note": "y" * 60})))
    assert result.is_error is True
    assert "50" in result.text


def test_moderately_deep_nesting_still_works():
    depth = 40
    text = '{"payload": {"a": ' + "[" * depth + "]" * depth + "}}"
    result = LocalToolExecutor(echo).execute(ToolExecutionRequest(name="echo", arguments=text))
    assert result.is_error is False
    assert result.text.startswith('{"payload":{"a":[[[')


@tool
def text_and_any(t: str = "", a: object = None) -> str:
    return f"{type(t).__name__}:{len(t)}|{type(a).__name__}"


@pytest.mark.parametrize("depth", [30, 500, 980, 5000])
@pytest.mark.parametrize("key", ["t", "a"])
def test_deep_value_for_str_or_any_target_never_raises_recursion_error(depth, key):
    # Re-serialising for a str target or converting for Any must never surface a
    # RecursionError: the call either works or is an argument error.
    executor = LocalToolExecutor(text_and_any)
    nested = "[" * depth + "]" * depth
    arguments = '{"' + key + '": ' + nested + "}"
    try:
        result = executor.execute(ToolExecutionRequest(name="text_and_any", arguments=arguments))
    except ArgumentError:
        assert depth > 30, "shallow nesting must be accepted"
        return
    assert result.is_error is False
    if key == "t":
        assert result.text == f"str:{2 * depth}|NoneType"
    else:
        assert result.text == "str:0|list"


# --- 6. numbers keep their exact text ----------------------------------------------------

def test_numbers_keep_exact_text_until_coercion():
    executor = LocalToolExecutor(amounts)
    result = executor.execute(ToolExecutionRequest(
        name="amounts", arguments='{"price": 0.1, "count": 9007199254740993}'))
    assert result.text == "Decimal:0.1|int:9007199254740993"
    result = executor.execute(ToolExecutionRequest(
        name="amounts", arguments='{"price": 19.990, "count": 1e2}'))
    assert result.text == "Decimal:19.990|int:100"


def test_parsed_numbers_compare_as_floats():
    parsed = parse_arguments('{"a": 0.5, "b": 1e3, "c": 7}')
    assert parsed == {"a": 0.5, "b": 1000.0, "c": 7}
    assert type(parsed["c"]) is int
