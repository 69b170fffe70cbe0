"""The anaconda-mcp server's ``conda_create_environment`` tool, for the Claude Desktop
log excerpt ``mcp-desktop-log``.

Creating an environment is conda's work on the recording's machine: what it answered
there (a failed transaction, with its id) cannot be computed here, so the tool answers
what the server answered for the same environment, from a table keyed by its arguments,
in the server's own shape: a JSON object with ``is_error``, ``error_description`` and
``tool_result``, sent as a successful MCP result. An environment the table lacks is
refused.
"""

from __future__ import annotations

import json

from execution_log import counted_tool

OUTCOMES: dict[tuple[str, str], dict[str, object]] = {
    ("anaconda-mcp-rc2-c111-py313-3", "/opt/miniconda3/envs"): {
        "is_error": True,
        "error_description": (
            "('conda:transaction:failed', 'Transaction execution failed: Non-thread-safe "
            "operation invoked on an event loop other than the current one', "
            "'f0ac614157844a878107af780f4ae414')"),
        "tool_result": {},
    },
}


class AnacondaMcpTools:
    """The anaconda-mcp server's environment tool."""

    @counted_tool(name="conda_create_environment")
    def conda_create_environment(self, environment_name: str,
                                 environment_root_path: str) -> str:
        """Create a conda environment under a root folder."""
        outcome = OUTCOMES.get((environment_name, environment_root_path))
        if outcome is None:
            raise LookupError(f"no recorded outcome for creating {environment_name} "
                              f"under {environment_root_path}")
        return json.dumps(outcome)
