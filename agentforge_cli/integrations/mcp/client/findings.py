"""What ``tools check`` says about MCP tools agentforge cannot call: a tool the server
lists that the SDK's types refuse (left out; an error) and a tool that must be called as
an MCP task (``execution.taskSupport: "required"``; a warning, agentforge cannot yet)."""

from __future__ import annotations

from collections.abc import Iterable

from agentforge_cli.core.define.spec import ToolSpecification
from agentforge_cli.integrations.mcp.client.listing import SkippedTool
from agentforge_cli.integrations.mcp.client.tasks import TASK_REQUIRED_TEXT, task_required
from agentforge_cli.schema.findings import ERROR, WARNING, Finding, finding
from agentforge_cli.schema.rule_ids import MCP_TASK_REQUIRED, MCP_TOOL_UNUSABLE

__all__ = ["TASK_RULE", "UNUSABLE_RULE", "mcp_findings"]

UNUSABLE_RULE = MCP_TOOL_UNUSABLE
TASK_RULE = MCP_TASK_REQUIRED


def mcp_findings(skipped: Iterable[SkippedTool], specs: Iterable[ToolSpecification]
                 ) -> list[Finding]:
    """An error per tool left out, a warning per task-only tool."""
    found = [finding(tool.name, UNUSABLE_RULE, ERROR,
                     f"MCP server {tool.server} lists it, but it cannot be used and is "
                     f"left out: {tool.reason}") for tool in skipped]
    found.extend(finding(spec.name, TASK_RULE, WARNING,
                         f"{TASK_REQUIRED_TEXT}: its calls are sent without one, and "
                         "the server refuses them")
                 for spec in specs if task_required(spec))
    return found
