"""The one exception tree of agentforge.

Every error the library raises on purpose derives from :class:`AgentForgeError`, so one
``except`` catches them all. The classes defined elsewhere name their module; a test
(``tests/test_public_api.py``) compares this drawing with the real subclasses::

    AgentForgeError
     ├── ToolDefinitionError      a tool cannot be declared or registered (bad signature,
     │    │                       unsupported type, duplicated name, a class given as
     │    │                       target); also a TypeError
     │    └── UnsupportedTypeError   an annotation no type handler supports
     │                               (core/define/handlers/type_rule.py)
     ├── ArgumentError            the model's arguments cannot be bound (also a ValueError);
     │                            raised as is when argument errors are not wrapped
     ├── ToolArgumentsError       an ArgumentError wrapped by the executor's
     │                            ``wrap_argument_errors`` switch (also a ValueError)
     ├── ToolExecutionError       the tool itself failed and the executor propagates
     │    ├── ToolTimeoutError    the tool did not return within the executor's timeout
     │    └── ToolErrorAnswer     an MCP server answered the call with an error
     ├── TargetError              a tool target cannot be loaded (module, name, class, no tool)
     │    ├── TargetConfigError   no target given, or a target / its configuration is malformed
     │    ├── ServerCallError     an MCP server died or did not answer during a tools/call
     │    ├── MCPUnavailableError    the ``mcp`` SDK is missing or too old (also an
     │    │                          ImportError)
     │    └── Unanswered          a streamable-HTTP server did not answer a plain tools/list
     │                            in time (integrations/mcp/client/plain_listing.py)
     ├── TranscriptError          a transcript cannot be read (file, place, reason)
     │    │                       (replay/transcripts/errors.py)
     │    └── TranscriptFormatError   no transcript format reads the file
     │                                (replay/transcripts/errors.py)
     ├── EventStreamError         an AWS event stream cannot be decoded (a frame cut short,
     │                            a checksum that fails); also a ValueError
     │                            (replay/transcripts/formats/bedrock_stream.py)
     ├── SnapshotError            a schema snapshot cannot be read (also a ValueError)
     │    └── SnapshotMissingError   the snapshot file does not exist
     ├── ProviderExportError      a provider has no accepted form for part of a schema
     │                            (also a ValueError)
     ├── BlockedEffectError       fuzzing refused what a call tried to do to the world (a
     │                            file outside the temporary directory, a remote address,
     │                            a process); also a PermissionError
     ├── ListenError              ``serve`` cannot listen on the address (a taken port, an
     │                            unknown host); also an OSError
     ├── CommandInputError        an option value or an input a command cannot use (a bad
     │                            value, an unreadable arguments file); nothing has run yet;
     │                            also a ValueError
     ├── ModelError               a model could not be asked: its server refused or failed
     │    │                       the request (models/errors.py)
     │    ├── ModelUnavailableError  the SDK is missing or no API key is set
     │    │                          (models/errors.py)
     │    ├── CacheMiss           --offline, and the response is not in the cassette
     │    │                       (models/errors.py)
     │    └── ScriptError         a scripted model's step names an unknown tool or does
     │                            not bind, or the script is played out (models/errors.py)
     ├── ScenarioFileError        an eval scenario file cannot be read or is not a valid one
     │                            (models/scenarios/cases.py)
     ├── ExtensionError           an extension point's entries clash: two share a name, or
     │                            their ``before`` order is a cycle
     │                            (core/declare/extension_points.py)
     └── CliError                 the command line's own failures, each with its exit code
          │                       (cli/errors.py)
          ├── UsageError          the command line is wrong (exit code 2; cli/errors.py)
          └── LoadError           a snapshot or the MCP SDK cannot be loaded (exit code 3;
                                  cli/errors.py)

Four exception classes stay outside the tree because they never reach a caller: the
executors turn ``ResultTooLarge`` (``core/run/call_policy.py``) and ``UnserializableResult``
(``core/run/returns.py``) into the call's error result (or the ``__cause__`` of a
:class:`ToolExecutionError`), and pytest shows ``FuzzFailure`` and ``ReplayFailure``
(``integrations/pytest/``) as a failed item's message, never as an exception to catch.

Messages name the tool, the parameter path, the expected type and the value received, so
the model (or a person) can correct the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "AgentForgeError",
    "ArgumentError",
    "BlockedEffectError",
    "CommandInputError",
    "ListenError",
    "MCPUnavailableError",
    "ProviderExportError",
    "ServerCallError",
    "SnapshotError",
    "SnapshotMissingError",
    "TargetConfigError",
    "TargetError",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolErrorAnswer",
    "ToolExecutionError",
    "ToolTimeoutError",
]


class AgentForgeError(Exception):
    """Root of every error agentforge raises on purpose."""


class ToolDefinitionError(AgentForgeError, TypeError):
    """A tool cannot be declared or registered.

    Raised at scan time, never per call. The message lists every problem found in the
    definition, each naming the function's ``__qualname__`` and the parameter.
    """

    def __init__(self, message: str, *, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems: list[str] = problems if problems is not None else [message]
        """Each problem of the definition, one line each."""


class ArgumentError(AgentForgeError, ValueError):
    """The arguments a model sent cannot be bound to the tool's parameters.

    The message is built from typed attributes so that containers can prepend their part of
    the path while the error travels up (``items`` -> ``items[2]`` -> ``items[2].qty``).

    Attributes:
        problem: What is wrong, e.g. ``has non-integer value for int: <5.5>``.
        path: Path segments from the parameter down, e.g. ``["items", "[2]", ".qty"]``.
        tool: Name of the tool, once known.
        expected: Label of the expected type (``int``, ``Int32``, ``list[int]``), if any.
        received: The offending value (``None`` when not applicable).
    """

    def __init__(
        self,
        problem: str,
        *,
        path: list[str] | None = None,
        tool: str | None = None,
        expected: str | None = None,
        received: object = None,
    ) -> None:
        super().__init__(problem)
        self.problem = problem
        self.path: list[str] = path if path is not None else []
        self.tool = tool
        self.expected = expected
        self.received = received

    def at(self, segment: str) -> ArgumentError:
        """Prepend a path segment (``"name"``, ``"[2]"`` or ``".qty"``) and return self."""
        self.path.insert(0, segment)
        return self

    def mask_received(self) -> ArgumentError:
        """Replace the received value in the message by ``<***>`` (a secret); return self."""
        if self.received is not None:
            from agentforge_cli.core.bind.jsonvalues import describe

            self.problem = self.problem.replace(describe(self.received), "<***>")
            self.received = "***"
        return self

    @property
    def parameter_path(self) -> str:
        """The dotted/indexed path of the offending value, e.g. ``items[2].qty``."""
        return "".join(self.path).lstrip(".")

    def __str__(self) -> str:
        path = self.parameter_path
        text = f'Argument "{path}" {self.problem}' if path else self.problem
        if self.tool is not None and f'ool "{self.tool}"' not in text:  # Tool / tool
            text += f' (tool "{self.tool}")'
        return text


class ToolArgumentsError(AgentForgeError, ValueError):
    """An :class:`ArgumentError` re-raised under the executor's wrapping switch.

    The original error is the ``__cause__``.
    """


class ToolExecutionError(AgentForgeError):
    """The tool raised (or timed out) and the executor propagates execution errors.

    The tool's own exception is the ``__cause__``.
    """


class ToolTimeoutError(ToolExecutionError):
    """The tool did not return within the executor's timeout."""


class ToolErrorAnswer(ToolExecutionError):
    """An MCP server answered ``tools/call`` with an error: a result with ``isError: true``
    (``code`` is ``None``) or a JSON-RPC error (``code`` is its code, such as ``-32602``).
    """

    def __init__(self, message: str, *, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class TargetError(AgentForgeError):
    """A tool target (``package.module[:Name]``, ``path/to/file.py[:Name]``) cannot be loaded.

    Attributes:
        message: What went wrong, naming the target.
        hint: How to fix it, or ``None``.
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class TargetConfigError(TargetError):
    """No target is given anywhere, or a target string or the ``[tool.agentforge]`` table
    is malformed: the command line or configuration must change, not the tools."""


class ServerCallError(TargetError):
    """An MCP server failed a ``tools/call`` as a whole, not with an answer.

    Attributes:
        outcome: ``died`` (it exited or closed the connection during this call), ``hung``
            (no answer within the call timeout) or ``gone`` (it died during an earlier
            call).
    """

    def __init__(self, message: str, *, outcome: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.outcome = outcome


class SnapshotError(AgentForgeError, ValueError):
    """A snapshot file cannot be read: malformed JSON or not a snapshot."""


class SnapshotMissingError(SnapshotError):
    """The snapshot file does not exist (create it with ``--update-snapshot``)."""


class ProviderExportError(AgentForgeError, ValueError):
    """A provider has no accepted form for some parameter of some tool.

    Attributes:
        provider: The provider the export was for.
        issues: Every problem found, across all tools (one line each in the message).
    """

    def __init__(self, provider: str, issues: Iterable[object]) -> None:
        self.provider = provider
        self.issues = list(issues)
        lines = "\n  ".join(str(issue) for issue in self.issues)
        count = len(self.issues)
        super().__init__(f"cannot export {count} schema part{'' if count == 1 else 's'} "
                         f"for {provider}:\n  {lines}")


class MCPUnavailableError(TargetError, ImportError):
    """The ``mcp`` SDK is not installed, cannot be imported, or is too old: for MCP
    targets and for ``serve`` alike. The message says what is missing, the hint how to
    install it."""


class BlockedEffectError(AgentForgeError, PermissionError):
    """The fuzz effect guard refused what a fuzzed call tried to do to the world.

    Raised inside the tool, from the operation itself (``open``, ``socket.connect``,
    ``subprocess.Popen``...), before it happens; a ``PermissionError`` so that code
    handling a refused file or connection handles it too.

    Attributes:
        tool: The tool being fuzzed.
        effect: What it tried, e.g. ``open('/etc/x', 'w')`` or ``connect to 192.0.2.1:80``.
    """

    def __init__(self, message: str, *, tool: str, effect: str) -> None:
        super().__init__(message)
        self.tool = tool
        self.effect = effect


class ListenError(AgentForgeError, OSError):
    """The address cannot be listened on (a taken port, an unknown host)."""


class CommandInputError(AgentForgeError, ValueError):
    """An option value or an input a command cannot use; nothing has run yet. The command
    line reports it as a usage error (exit code 2).

    Attributes:
        message: What is wrong, naming the option and the value.
        hint: How to fix it, or ``None``.
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
