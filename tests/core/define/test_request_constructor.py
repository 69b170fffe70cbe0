"""``ToolExecutionRequest``'s one constructor fills its slots directly: the one equivalence
test of that speed trick, against the ``__init__`` the frozen dataclass would generate."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from agentforge_cli.core.define.spec import ToolExecutionRequest


@dataclasses.dataclass(frozen=True, kw_only=True, slots=True)
class Generated:
    """The same fields, with the generated ``__init__``."""

    id: str | None = None
    name: str
    arguments: str | None = "{}"


CALLS = [
    ((), {"name": "lookup"}),
    ((), {"id": "call_1", "name": "lookup", "arguments": '{"q": 1}'}),
    ((), {"name": "lookup", "arguments": None}),
    (("lookup",), {}),
    ((), {}),
    ((), {"name": "lookup", "extra": 1}),
]


def made(cls: type, args: tuple[object, ...], kwargs: dict[str, object]) -> object:
    try:
        made = cls(*args, **kwargs)
    except TypeError as exc:
        return "TypeError", str(exc).split(".", 1)[-1].split("()", 1)[-1]
    return made.id, made.name, made.arguments  # type: ignore[attr-defined]  # either class


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_the_constructor_behaves_as_the_generated_one(args, kwargs):
    assert made(ToolExecutionRequest, args, kwargs) == made(Generated, args, kwargs)


def test_a_request_stays_a_frozen_value():
    request = ToolExecutionRequest(id="c1", name="lookup", arguments="{}")
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.name = "other"  # type: ignore[misc]  # frozen on purpose
    assert request == ToolExecutionRequest(id="c1", name="lookup")
    assert hash(request) == hash(ToolExecutionRequest(id="c1", name="lookup"))
    assert dataclasses.replace(request, name="other").name == "other"
    assert pickle.loads(pickle.dumps(request)) == copy.copy(request) == request
    assert repr(request) == "ToolExecutionRequest(id='c1', name='lookup', arguments='{}')"
