"""The sensitive keys an executor declares: what masking hides beyond secret-like names.

Read when a tool is registered, logged or reported on (an ``isinstance`` on a Protocol),
never per call: a wrapper keeps what it read of its delegate.
"""

from __future__ import annotations

from typing import Any

from agentforge_cli.core.define.capabilities import SensitiveToolExecutor
from agentforge_cli.core.run.wrapping import innermost

__all__ = ["sensitive_keys", "tool_sensitive_keys"]

_NONE: frozenset[str] = frozenset()


def sensitive_keys(executor: Any) -> frozenset[str]:
    """The JSON keys of a tool's sensitive parameters, for any executor (through wrappers
    such as the logging decorator); empty for an executor that does not declare any."""
    executor = innermost(executor)
    if not isinstance(executor, SensitiveToolExecutor):
        return _NONE
    keys = executor.sensitive_keys
    return keys if isinstance(keys, frozenset) else _NONE


def tool_sensitive_keys(service: Any, name: str) -> frozenset[str]:
    """The sensitive keys of the tool called ``name`` in a service (anything with
    ``executor(name)`` and ``names``). For a name the service does not know, every tool's:
    a call recorded under an old name may carry a secret parameter of today's tool."""
    executor = service.executor(name)
    if executor is not None:
        return sensitive_keys(executor)
    return frozenset().union(*(sensitive_keys(service.executor(known))
                               for known in service.names))
