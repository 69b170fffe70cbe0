"""No function of the command line decides much: each takes at most 12 branches.

The count is McCabe's as ruff's C901 rule reports it (one, plus one per ``if``/``elif``,
loop, ``except``, ``else`` of a ``try``, ``case`` and nested function), plus the
decisions C901 leaves out: each ``and``/``or`` operand after the first, each conditional
expression (``x if c else y``), and each loop and each ``if`` of a comprehension. What a
command decides belongs to the stage it is about (``fuzz/``, ``schema/``,
``integrations/``, ``core/run/``), tested there; the command parses its options and
renders.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "agentforge_cli" / "cli"
LIMIT = 12

ALLOWED: frozenset[str] = frozenset()
"""Functions allowed above the limit, by ``file:function``: none."""

Function = ast.FunctionDef | ast.AsyncFunctionDef


def decisions(node: ast.AST) -> int:
    """The decision points one node adds, whatever it holds."""
    if isinstance(node, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.ExceptHandler,
                         ast.match_case, ast.FunctionDef, ast.AsyncFunctionDef, ast.IfExp)):
        return 1
    if isinstance(node, (ast.Try, ast.TryStar)):
        return 1 if node.orelse else 0  # the ``else`` of a ``try``
    if isinstance(node, ast.BoolOp):
        return len(node.values) - 1
    if isinstance(node, ast.comprehension):
        return 1 + len(node.ifs)
    return 0


def complexity(function: Function) -> int:
    """One, plus the decisions of everything inside ``function`` (nested functions too)."""
    return 1 + sum(decisions(node) for node in ast.walk(function) if node is not function)


def functions(path: Path) -> Iterator[Function]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def measured() -> dict[str, int]:
    """``file:function`` -> complexity, for every function under ``cli/``."""
    return {f"{path.relative_to(CLI).as_posix()}:{function.name}": complexity(function)
            for path in sorted(CLI.rglob("*.py")) for function in functions(path)}


def test_no_command_line_function_is_above_the_limit():
    above = {name: count for name, count in measured().items()
             if count > LIMIT and name not in ALLOWED}
    assert above == {}, f"above {LIMIT} (move the decisions to their stage): {above}"


def test_the_allowance_names_only_functions_still_above_the_limit():
    counts = measured()
    assert {name for name in ALLOWED if counts.get(name, 0) <= LIMIT} == set()


def _function(source: str) -> Function:
    (function,) = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]
    return function


def test_the_statements_count_as_mccabe_s():
    source = '''
def f(items):
    for item in items:
        if item:
            continue
        elif item is None:
            break
    else:
        pass
    try:
        pass
    except ValueError:
        pass
    else:
        pass
    while items:
        pass
    match items:
        case []:
            pass
        case _:
            pass
    def g():
        return items
'''
    # 1 + for + if + elif + except + try's else + while + 2 cases + nested def
    # (not the loop's else)
    assert complexity(_function(source)) == 10


def test_each_operand_after_the_first_counts():
    assert complexity(_function("def f(a, b, c):\n    return a and b or c\n")) == 3
    assert complexity(_function("def f(a, b, c):\n    return a or b or c\n")) == 3


def test_a_conditional_expression_counts():
    assert complexity(_function("def f(a):\n    return 1 if a else 2\n")) == 2


def test_each_loop_and_each_if_of_a_comprehension_counts():
    source = "def f(rows):\n    return [x for row in rows if row for x in row if x if x > 1]\n"
    assert complexity(_function(source)) == 6  # 1 + 2 loops + 3 ifs
    assert complexity(_function("def f(rows):\n    return {r: 1 for r in rows}\n")) == 2
