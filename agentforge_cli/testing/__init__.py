"""What a project's own tests use: a scripted model whose calls are checked against the
tools' binding (:class:`ScriptedModel`; :func:`call`, :func:`calls`, :func:`refused` and
:func:`say` make its steps), and :class:`ScriptError`, what it raises when a step does not fit.

In pytest, the plugin's ``agentforge_scripted_model`` fixture builds one against the
configured tools. Standard library only at import.
"""

from __future__ import annotations

from agentforge_cli.models.errors import ScriptError
from agentforge_cli.models.scripted import (
    ScriptedModel,
    Step,
    call,
    calls,
    read_script,
    refused,
    say,
)

__all__ = ["ScriptError", "ScriptedModel", "Step", "call", "calls", "read_script", "refused",
           "say"]
