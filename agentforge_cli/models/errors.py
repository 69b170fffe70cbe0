"""The errors of a model connection."""

from __future__ import annotations

from agentforge_cli.errors import AgentForgeError

__all__ = ["CacheMiss", "ModelError", "ModelUnavailableError"]


class ModelError(AgentForgeError):
    """A model could not be asked: its server refused or failed the request, or gave an
    answer the connection cannot read. The message never holds the API key."""


class ModelUnavailableError(ModelError):
    """A connection cannot open: its SDK is not installed, or no API key is set."""


class CacheMiss(ModelError):
    """``--offline``: a request whose response is not in the cassette."""
