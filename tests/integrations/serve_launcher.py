"""Serve ``sample_tools.shop`` and ``mcp_sample_tools`` over MCP stdio (for the tests).

    python tests/integrations/serve_launcher.py [--log]

What ``agentforge serve sample_tools.shop tests/integrations/mcp_sample_tools.py [--log]`` does,
without depending on the CLI's target loading.
"""

import sys

import mcp_sample_tools  # the script's directory is on sys.path

from agentforge_cli import ToolService, build_local_tools
from agentforge_cli.integrations.mcp.server.tool_server import run_stdio
from sample_tools.shop import ShopTools


def main(argv: list[str]) -> None:
    log = "--log" in argv
    table = build_local_tools([ShopTools(), mcp_sample_tools], logging=log)
    run_stdio(ToolService().tools(table), log=log)


if __name__ == "__main__":
    main(sys.argv[1:])
