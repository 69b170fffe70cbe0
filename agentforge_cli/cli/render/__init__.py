"""Everything the command line draws with rich, one module for each thing drawn.

``consoles`` (the two consoles, terminal-safe text), ``messages`` (errors, warnings,
tracebacks), ``tool_listing`` (``tools list``), ``findings_table`` (``tools check`` /
``tools diff``), ``binding_table`` (``tools call --explain``), ``tool_log`` and
``tool_log_handler`` (``--log``), ``replay_trace`` and ``replay_totals`` (``replay``),
``progress_bar`` (a long replay). The commands use the names re-exported here.
"""

from __future__ import annotations

from agentforge_cli.cli.output import write
from agentforge_cli.cli.render.binding_table import explain
from agentforge_cli.cli.render.consoles import (
    print_trimmed,
    safe_text,
    stderr_console,
    stdout_console,
)
from agentforge_cli.cli.render.findings_table import WIDE_FINDINGS, findings
from agentforge_cli.cli.render.messages import debug_traceback, error, skipped_tool, warning
from agentforge_cli.cli.render.progress_bar import LONG_TRANSCRIPT, progress, progress_possible
from agentforge_cli.cli.render.replay_totals import replay_summary
from agentforge_cli.cli.render.replay_trace import TracePrinter
from agentforge_cli.cli.render.tool_listing import tool_list
from agentforge_cli.cli.render.tool_log import tool_logging

__all__ = [
    "LONG_TRANSCRIPT",
    "WIDE_FINDINGS",
    "TracePrinter",
    "debug_traceback",
    "error",
    "explain",
    "findings",
    "print_trimmed",
    "progress",
    "progress_possible",
    "replay_summary",
    "safe_text",
    "skipped_tool",
    "stderr_console",
    "stdout_console",
    "tool_list",
    "tool_logging",
    "warning",
    "write",
]
