"""The CRM tool under the names coding agents give an MCP server's tools, for replaying
their session files in ``sample_tools/transcripts/formats/`` with
``-t sample_tools.mcp_names:CrmAsMcp``.

For a server configured as ``crm``, Claude Code calls the tool ``mcp__crm__queryCustomer``
and records its result as the MCP text blocks; Codex calls it ``crm__queryCustomer`` and
records the result's content blocks as JSON text.
"""

import json
from typing import Annotated

from agentforge_cli import P, tool
from sample_tools.crm import CrmTools

_CRM = CrmTools()


class CrmAsMcp:
    """``queryCustomer`` as Claude Code and Codex name it."""

    @tool(name="mcp__crm__queryCustomer", description="按客户名查询客户信息")
    def claude_code(
        self,
        name: Annotated[str, P("客户名称")],
        limit: Annotated[int, P("返回条数")],
    ) -> str:
        return _CRM.queryCustomer(name, limit)

    @tool(name="crm__queryCustomer", description="按客户名查询客户信息")
    def codex(
        self,
        name: Annotated[str, P("客户名称")],
        limit: Annotated[int, P("返回条数")],
    ) -> str:
        return json.dumps([{"type": "text", "text": _CRM.queryCustomer(name, limit)}],
                          ensure_ascii=False)
