"""What ``--schema-form`` does to the tools of ``serve`` and ``tools list``: their input
schemas as written, or in the form google-genai's MCP bridge takes (``gemini-mcp``, see
:mod:`~agentforge_cli.schema.providers.gemini_mcp_form`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agentforge_cli.cli.errors import CliError
from agentforge_cli.cli.options import SchemaForm

__all__ = ["apply_schema_form"]


def apply_schema_form(service: Any, form: SchemaForm) -> None:
    """Give each tool of ``service`` its input schema in ``form`` (calls still bind
    against each tool's own signature). Each part written in the closest form is a
    warning on stderr.

    Raises:
        CliError: Some part of some tool has no form the bridge takes (exit 1).
    """
    if form == "standard":
        return
    from agentforge_cli.cli import render
    from agentforge_cli.errors import ProviderExportError
    from agentforge_cli.integrations.targets.provenance import tool_origins
    from agentforge_cli.schema.providers.gemini_mcp_form import convert_gemini_mcp_form
    from agentforge_cli.schema.tool_origins import origin_of

    origins = tool_origins(service)
    table: dict[Any, Any] = {}
    errors = []
    for spec in service.specifications:
        conversion = convert_gemini_mcp_form(spec)
        errors.extend(conversion.errors)
        for issue in conversion.warnings:
            render.warning(str(issue.told(origin_of(origins, spec.name))))
        if conversion.data is not None:
            table[replace(spec, parameters=conversion.data)] = service.executor(spec.name)
    if errors:
        raise CliError(str(ProviderExportError("gemini-mcp", errors)),
                       hint="these have no form in Gemini's schema: see agentforge tools "
                            "check --provider gemini")
    service.tools(table)  # the same names: each replaces its tool's specification
