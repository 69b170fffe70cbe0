"""Whether the optional ``fuzz`` extra can be used (checked before the engine is imported)."""

from __future__ import annotations

import importlib

__all__ = ["INSTALL_HINT", "missing_modules"]

REQUIRED = ("hypothesis",)
INSTALL_HINT = ("install the fuzz extra: pip install '.[fuzz]' in a clone of agentforge "
                "(the agentforge-tools distribution), or pip install 'hypothesis>=6.100'")


def missing_modules() -> list[str]:
    """The modules of the ``fuzz`` extra that cannot be imported."""
    missing = []
    for name in REQUIRED:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing
