"""agentforge: turn Python functions into tools a language model can call.

The public door. ``from agentforge_cli import tool, P`` loads two small modules and
nothing else; every other name is imported on first use (PEP 562), so code that only
declares tools pays next to nothing. Importing the package has no side effects.
"""

from __future__ import annotations

from agentforge_cli.core.declare.decorator import tool
from agentforge_cli.core.declare.params import P

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:  # what a type checker sees of the names __getattr__ imports
    from typing import Any

    from agentforge_cli.core.declare.aliases import Float32, Int8, Int16, Int32, Int64
    from agentforge_cli.core.declare.served_extras import prompt, resource
    from agentforge_cli.core.define.definition import tool_specification_from
    from agentforge_cli.core.define.spec import (
        ToolExecutionRequest,
        ToolExecutionResult,
        ToolExecutor,
        ToolSpecification,
    )
    from agentforge_cli.core.observe.calllog import LoggingToolExecutor
    from agentforge_cli.core.observe.recording import CallRecorder
    from agentforge_cli.core.observe.tracing import TracingToolExecutor
    from agentforge_cli.core.run.discovery import build_local_tools
    from agentforge_cli.core.run.executor import LocalToolExecutor
    from agentforge_cli.core.run.service import ToolService
    from agentforge_cli.errors import (
        AgentForgeError,
        ArgumentError,
        ToolArgumentsError,
        ToolDefinitionError,
        ToolExecutionError,
        ToolTimeoutError,
    )
del TYPE_CHECKING  # not one of the package's names

__version__ = "0.1.0"

__all__ = [
    "AgentForgeError",
    "ArgumentError",
    "CallRecorder",
    "Float32",
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "LocalToolExecutor",
    "LoggingToolExecutor",
    "P",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolExecutionError",
    "ToolExecutionRequest",
    "ToolExecutionResult",
    "ToolExecutor",
    "ToolService",
    "ToolSpecification",
    "ToolTimeoutError",
    "TracingToolExecutor",
    "__version__",
    "build_local_tools",
    "prompt",
    "resource",
    "tool",
    "tool_specification_from",
]

_LAZY = {
    "AgentForgeError": "agentforge_cli.errors",
    "ArgumentError": "agentforge_cli.errors",
    "CallRecorder": "agentforge_cli.core.observe.recording",
    "ToolArgumentsError": "agentforge_cli.errors",
    "ToolDefinitionError": "agentforge_cli.errors",
    "ToolExecutionError": "agentforge_cli.errors",
    "ToolTimeoutError": "agentforge_cli.errors",
    "Float32": "agentforge_cli.core.declare.aliases",
    "Int8": "agentforge_cli.core.declare.aliases",
    "Int16": "agentforge_cli.core.declare.aliases",
    "Int32": "agentforge_cli.core.declare.aliases",
    "Int64": "agentforge_cli.core.declare.aliases",
    "LocalToolExecutor": "agentforge_cli.core.run.executor",
    "LoggingToolExecutor": "agentforge_cli.core.observe.calllog",
    "TracingToolExecutor": "agentforge_cli.core.observe.tracing",
    "ToolExecutionRequest": "agentforge_cli.core.define.spec",
    "ToolExecutionResult": "agentforge_cli.core.define.spec",
    "ToolExecutor": "agentforge_cli.core.define.spec",
    "ToolSpecification": "agentforge_cli.core.define.spec",
    "ToolService": "agentforge_cli.core.run.service",
    "build_local_tools": "agentforge_cli.core.run.discovery",
    "prompt": "agentforge_cli.core.declare.served_extras",
    "resource": "agentforge_cli.core.declare.served_extras",
    "tool_specification_from": "agentforge_cli.core.define.definition",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agentforge_cli' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
