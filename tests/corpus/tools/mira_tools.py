"""The tools of Mirascope's end-to-end tests (the ``mira-*`` cassettes).

Each computes what the test's tool computes, so every recorded result is reproduced:

* ``secret_retrieval_tool`` looks a password up in the test's two secrets;
* ``passphrase_test_tool`` refuses any passphrase but the test's, by raising: Mirascope
  sends the exception's text to the model as the tool's output;
* ``compute_fib`` counts Fibonacci numbers from 0 (1-indexed: the 1st is 0);
* ``greet``, ``answer_ultimate_question`` and ``process_answer`` are the tools of the
  test's MCP server. Mirascope hands an MCP tool's result to the model as the Python
  ``repr`` of its content blocks (``[{'type': 'text', 'text': ..., 'annotations': None,
  'meta': None}]``), so these tools answer in that form.
"""

from __future__ import annotations

from execution_log import counted_tool
from pydantic import BaseModel, Field

SECRETS = {"mellon": "Welcome to Moria!", "radiance": "Life before Death"}
"""The test's passwords and the secrets they retrieve."""
PASSPHRASE = "cake"
ULTIMATE_QUESTION = "What is the answer to life, the universe, and everything?"


class SecretTools:
    """The parallel-calling tests' tool (``test_call_with_tools``)."""

    @counted_tool(name="secret_retrieval_tool")
    def secret_retrieval_tool(self, password: str) -> str:
        """A tool that requires a password to retrieve a secret."""
        return SECRETS.get(password, "Invalid password!")


class PassphraseTools:
    """The tool-error tests' tool (``test_call_with_tool_error``)."""

    @counted_tool(name="passphrase_test_tool")
    def passphrase_test_tool(self, passphrase: str) -> str:
        """A tool that must be called with a passphrase."""
        if passphrase != PASSPHRASE:
            raise ValueError(f"Incorrect passhrase: The correct passphrase is "
                             f"'{PASSPHRASE}'. Try again.")
        return "The cake is a lie."


class FibTools:
    """The resume tests' tool (``test_resume_with_override_thinking_and_tools``)."""

    @counted_tool(name="compute_fib")
    def compute_fib(self, n: int) -> int:
        """Compute the nth Fibonacci number (1-indexed)."""
        previous, current = 0, 1
        for _ in range(n - 1):
            previous, current = current, previous + current
        return previous


class ComputerInfo(BaseModel):
    """Information about Deep Thought computer."""

    name: str = Field(description="The name of the computer")
    years_computed: int = Field(description="How many years it took to compute")


class UltimateAnswer(BaseModel):
    """The answer to life, the universe, and everything."""

    answer: int = Field(description="The numerical answer")
    question: str = Field(description="The question that was asked")
    computed_by: ComputerInfo = Field(description="Information about the computer")


def mcp_text(text: str) -> str:
    """One MCP text block, as Mirascope passes an MCP result on: the repr of its dump."""
    return repr([{"type": "text", "text": text, "annotations": None, "meta": None}])


class McpDemoTools:
    """The MCP tests' server tools (``test_call_with_mcp_tools``), as Mirascope wraps them."""

    @counted_tool(name="greet")
    def greet(self, name: str) -> str:
        """Greet a user with very special welcome."""
        return mcp_text(f"Welcome to Zombo.com, {name}")

    @counted_tool(name="answer_ultimate_question")
    def answer_ultimate_question(self) -> str:
        """Answer the ultimate question of life, the universe, and everything."""
        answer = UltimateAnswer(answer=42, question=ULTIMATE_QUESTION,
                                computed_by=ComputerInfo(name="Deep Thought",
                                                         years_computed=7_500_000))
        return mcp_text(answer.model_dump_json())

    @counted_tool(name="process_answer")
    def process_answer(self, answer_data: UltimateAnswer) -> str:
        """Process and format an ultimate answer."""
        computer = answer_data.computed_by
        return mcp_text(f"The answer {answer_data.answer} to '{answer_data.question}' was "
                        f"computed by {computer.name} over {computer.years_computed:,} years")
