"""``tools check --junit FILE``: the findings as a JUnit XML report.

One ``testcase`` per tool, and one named ``(tool set)`` for the findings about the
tool set as a whole (a client's tool count, say) whenever a client is checked or such a
finding exists. A testcase fails when one of its counted findings is at the failing level
(``--fail-on``); the failure lists every counted finding of the tool, and the findings
below that level, and the silenced ones, go to its ``system-out``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from xml.etree import ElementTree

from agentforge_cli.cli.replay_outputs import xml_text

__all__ = ["TOOL_SET", "check_junit"]

TOOL_SET = "(tool set)"
"""The testcase of the findings that name no tool."""


def check_junit(findings: Sequence[Any], tools: Sequence[str], *, fail_on: str,
                tool_set: bool = False) -> str:
    """The report: ``findings`` over the ``tools`` checked (every one gets a testcase,
    a tool with no finding passes); ``tool_set`` adds the ``(tool set)`` testcase even
    when no finding is about the set."""
    from agentforge_cli.schema.findings import severity

    names = list(dict.fromkeys(tools))
    if tool_set or any(not f.tool for f in findings):
        names.append(TOOL_SET)
    by_tool: dict[str, list[Any]] = {name: [] for name in names}
    for item in findings:
        by_tool.setdefault(item.tool or TOOL_SET, []).append(item)
    threshold = severity(fail_on)
    suite = ElementTree.Element("testsuite", name="agentforge tools check",
                                tests=str(len(by_tool)), errors="0", skipped="0")
    failures = sum(_testcase(suite, name, found, threshold) for name, found in by_tool.items())
    suite.set("failures", str(failures))
    root = ElementTree.Element("testsuites")
    root.append(suite)
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(
        root, "unicode") + "\n"


def _testcase(suite: ElementTree.Element, name: str, found: Sequence[Any],
              threshold: int) -> bool:
    """Add the testcase of ``name`` to ``suite``: a failure when a counted finding is at
    ``threshold`` or above, listing every counted finding; the others in ``system-out``.
    Whether it failed."""
    from agentforge_cli.schema.findings import severity

    case = ElementTree.SubElement(suite, "testcase", classname="agentforge.check",
                                  name=xml_text(name), time="0.000000")
    counted = [f for f in found if not f.silenced]
    failing = [f for f in counted if severity(f.level) >= threshold]
    if failing:
        failure = ElementTree.SubElement(case, "failure", type=failing[0].rule,
                                         message=xml_text(failing[0].message))
        failure.text = xml_text("\n".join(str(f) for f in counted))
    rest = [f for f in found if f.silenced or not failing]
    if rest:
        ElementTree.SubElement(case, "system-out").text = xml_text(
            "\n".join(str(f) for f in rest))
    return bool(failing)
