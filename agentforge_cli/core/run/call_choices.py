""":class:`CallChoices`: what ``tools call`` decides from its flags about one call — which
notes it shows on standard error, what it works out about the arguments, and whether the
tool's exception is raised instead of answered; and :func:`check_call_timeout`, the
``--timeout`` a call may be given."""

from __future__ import annotations

from dataclasses import dataclass

from agentforge_cli.errors import CommandInputError

__all__ = ["CallChoices", "check_call_timeout"]


def check_call_timeout(timeout: float | None) -> None:
    """Refuse a ``--timeout`` that is not a positive number of seconds.

    Raises:
        CommandInputError: Naming the option and the value.
    """
    if timeout is not None and not timeout > 0:
        raise CommandInputError(f"--timeout must be a positive number of seconds, got "
                                f"{timeout:g}")


@dataclass(frozen=True, slots=True, kw_only=True)
class CallChoices:
    """The flags of one call; each property is one decision taken from them."""

    explain: bool = False
    """``--explain``: how each argument binds, and what parsing repaired."""
    json_output: bool = False
    """``--json``: one JSON object on standard output, no notes on standard error."""
    binding: str = "native"
    """``--binding``: how another library's tool is called (``native``, ``agentforge``)."""
    propagate_errors: bool = False
    """``--propagate-errors``: the tool's exception fails the command."""
    debug: bool = False
    """``--debug``: the tool's exception is raised to show its traceback."""

    @property
    def traced(self) -> bool:
        """The tool's exception is raised to show its traceback, then answered as the
        model would have been (``--debug`` without ``--propagate-errors``)."""
        return self.debug and not self.propagate_errors

    @property
    def propagates(self) -> bool:
        """The executor raises the tool's exception instead of answering it."""
        return self.propagate_errors or self.traced

    @property
    def explains(self) -> bool:
        """How the arguments bind is worked out (shown, or part of the JSON object)."""
        return self.explain or self.json_output

    @property
    def notes(self) -> bool:
        """Notes and explanations go to standard error (``--explain`` without ``--json``)."""
        return self.explain and not self.json_output

    def shows_binding_note(self, ran: str | None) -> bool:
        """The tool's binding note goes to standard error: another library's tool (``ran``
        is the path it takes) under ``--explain``, or called natively although
        ``--binding agentforge`` asked otherwise; never with ``--json``."""
        fell_back = self.binding == "agentforge" and ran == "native"
        return (self.explain or fell_back) and ran is not None and not self.json_output

    def looks_for_repairs(self, ran: str | None) -> bool:
        """What agentforge's parsing repaired is reported: under ``--explain``, unless the
        tool's own library parses the arguments (``ran == "native"``)."""
        return self.explain and ran != "native"
