"""agentforge tools as another library needs them: a name, a description, agentforge's
schema, and a call through agentforge's executor.

The ``to_<library>`` helpers of the adapters build their library's tool objects from
:func:`exported_tools`; what the library hands over (a dict of arguments, or the model's
argument text) goes through the same binding a model's call to agentforge takes.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

from agentforge_cli.core.define.spec import (
    ToolExecutionRequest,
    ToolExecutionResult,
    ToolSpecification,
)
from agentforge_cli.core.run.service import ToolService

__all__ = ["ExportedTool", "export_service", "exported_tools"]

_CALLS = itertools.count(1)


@dataclass(frozen=True, slots=True)
class ExportedTool:
    """One agentforge tool, for another library."""

    specification: ToolSpecification
    service: ToolService
    """The ``ToolService`` a call goes through: an argument error is an error result."""

    @property
    def name(self) -> str:
        return self.specification.name

    @property
    def description(self) -> str:
        return self.specification.description

    @property
    def parameters(self) -> dict[str, Any]:
        """agentforge's JSON Schema of the arguments."""
        return self.specification.parameters

    def request(self, arguments: dict[str, Any] | str | None, call_id: str | None = None
                ) -> ToolExecutionRequest:
        """The request of a call with a dict of arguments or the model's argument text."""
        text = arguments if isinstance(arguments, str) or arguments is None else json.dumps(
            arguments, ensure_ascii=False, default=str)
        return ToolExecutionRequest(id=call_id or f"export-{next(_CALLS)}", name=self.name,
                                    arguments=text)

    def call(self, arguments: dict[str, Any] | str | None, call_id: str | None = None
             ) -> ToolExecutionResult:
        """Run the tool on a dict of arguments or the model's argument text."""
        return self.service.execute(self.request(arguments, call_id))

    async def acall(self, arguments: dict[str, Any] | str | None,
                    call_id: str | None = None) -> ToolExecutionResult:
        """:meth:`call` from async code, without blocking the event loop."""
        return await self.service.aexecute(self.request(arguments, call_id))


def exported_tools(tools: Any) -> list[ExportedTool]:
    """The tools of ``tools``: what ``build_local_tools`` takes, or a ``ToolService`` (its
    recorder, if any, records the calls).

    Raises:
        ToolDefinitionError: A tool cannot be defined (every problem listed).
    """
    service = export_service(tools)
    return [ExportedTool(spec, service) for spec in service.specifications]


def export_service(tools: Any) -> ToolService:
    """``tools`` as a ``ToolService`` (itself when it is one).

    Raises:
        ToolDefinitionError: A tool cannot be defined (every problem listed).
    """
    if isinstance(tools, ToolService):
        return tools
    from agentforge_cli.core.run.discovery import build_local_tools

    return ToolService().tools(build_local_tools(tools))
