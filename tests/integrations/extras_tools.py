"""A module that declares resources, a resource template and prompts beside a tool, for
``agentforge serve`` (``@resource``, ``@prompt``)."""

from typing import Annotated

from agentforge_cli import P, prompt, resource, tool


@tool
def echo(text: Annotated[str, P("The text")]) -> str:
    """Says the text back."""
    return text


@resource("memo://greeting", mime_type="text/plain")
def greeting() -> str:
    """A greeting."""
    return "hello from agentforge"


@resource("memo://logo", name="logo", mime_type="image/png")
async def logo() -> bytes:
    return b"\x89PNG"


@resource("memo://notes/{topic}", description="A note on a topic")
def note(topic: str) -> str:
    return f"a note on {topic}"


@resource("memo://broken")
def broken() -> str:
    raise RuntimeError("the disk is gone")


@prompt
def review(code: Annotated[str, P("The code to review")], language: str = "python") -> str:
    """Reviews code."""
    return f"Review this {language} code:\n{code}"


@prompt(name="dialogue", title="A dialogue")
async def talk(topic: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Tell me about {topic}"},
            {"role": "assistant", "content": "Gladly."}]


class Helpers:
    @prompt
    def summarize(self, text: str) -> str:
        """Summarizes a text."""
        return f"Summarize: {text}"


helpers = Helpers()
