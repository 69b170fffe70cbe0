"""The framework adapters are one registry of declared ``FrameworkAdapter`` values: each of
agentforge's own names its library as its module does, and an adapter registered from
outside routes its library's objects with no other file touched."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

import pytest

from agentforge_cli.core.declare.extension_points import ExtensionPoint
from agentforge_cli.errors import TargetError
from agentforge_cli.integrations import frameworks
from agentforge_cli.integrations.frameworks import (
    ADAPTERS,
    FrameworkAdapter,
    adapter_for,
    module_members,
    read_foreign,
)
from agentforge_cli.integrations.frameworks.adapter import a_framework_adapter


def test_each_own_adapter_names_its_library_as_its_module_does():
    for adapter in ADAPTERS:
        module = importlib.import_module(
            f"agentforge_cli.integrations.frameworks.{adapter.name.replace('-', '_')}")
        assert adapter.library == module.LIBRARY, adapter.name
    assert ADAPTERS.names() == ("langchain", "pydantic-ai", "openai-agents", "fastmcp",
                                "smolagents")


@pytest.fixture
def toylib(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A library ``toylib`` whose ``Toolbox`` holds tools and whose ``Agent`` reaches them,
    with an adapter registered for it (on a copy of the registry)."""
    lib = types.ModuleType("toylib")
    exec("class Toolbox:\n    pass\nclass Agent(Toolbox):\n    pass\nclass Other:\n    pass\n",
         lib.__dict__)
    for name in ("Toolbox", "Agent", "Other"):
        getattr(lib, name).__module__ = "toylib.core"
    monkeypatch.setitem(sys.modules, "toylib", lib)

    def read_tools(obj: Any) -> list[Any]:
        raise RuntimeError("no tools today")

    registry = ExtensionPoint(ADAPTERS.kind, ADAPTERS.group, ADAPTERS.entries(),
                              check=a_framework_adapter)
    monkeypatch.setattr(frameworks, "ADAPTERS", registry)
    registry.register(FrameworkAdapter(
        name="toylib", library="Toy", roots=("toylib",),
        holds_tools=lambda obj: not isinstance(obj, lib.Other), read_tools=read_tools,
        in_module_scan=lambda obj: not isinstance(obj, lib.Agent)))
    return lib


def test_a_registered_adapter_reads_its_library_s_objects(toylib):
    box, agent, other = toylib.Toolbox(), toylib.Agent(), toylib.Other()
    adapter = adapter_for(box)
    assert adapter is not None and adapter.library == "Toy"
    assert adapter_for(agent) is adapter
    assert adapter_for(other) is None  # toylib's, but holds no tools
    module = types.ModuleType("target")
    module.__dict__.update(box=box, agent=agent, other=other, n=1)
    assert module_members(module) == [box]  # the agent reaches the box's tools
    with pytest.raises(TargetError, match=r"cannot read the Toy tools of target 'x': "
                                          r"RuntimeError: no tools today"):
        read_foreign(box, "x")


def test_without_the_adapter_the_library_s_objects_are_nobody_s():
    lib = types.ModuleType("toylib")
    exec("class Toolbox:\n    pass\n", lib.__dict__)
    lib.Toolbox.__module__ = "toylib"
    assert adapter_for(lib.Toolbox()) is None


def test_only_a_framework_adapter_is_registered():
    with pytest.raises(TypeError, match="a framework adapter is a FrameworkAdapter"):
        ADAPTERS.register(object())  # type: ignore[arg-type]  # the refusal under test
