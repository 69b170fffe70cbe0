"""The MCP clients agentforge knows, as data: each rule with its source and the date it
was checked. A limit seen in reports only, or one that has moved between versions, says
so in its source's note.
"""

from __future__ import annotations

import re

from agentforge_cli.schema.clients.base import Client, ClientRule, Source

__all__ = ["CHATGPT", "CLAUDE_API_STRICT", "CLAUDE_CODE", "CLAUDE_DESKTOP", "CODEX",
           "CURSOR", "GEMINI_CLI", "VSCODE"]

CHECKED = "2026-12-06"

_API_NAME = r"^[a-zA-Z0-9_-]{1,64}$"
_OPENAI_NAME = r"^[a-zA-Z0-9_-]{1,64}$"


def _underscored(allowed: str) -> re.Pattern[str]:
    return re.compile(f"[^{allowed}]")


_NOT_API_CHAR = _underscored("a-zA-Z0-9_-")
_NOT_GEMINI_CHAR = _underscored("a-zA-Z0-9_.:-")


def _api_safe(name: str) -> str:
    """A name with every character outside ``[a-zA-Z0-9_-]`` turned into ``_``."""
    return _NOT_API_CHAR.sub("_", name)


def _gemini_safe(name: str) -> str:
    """Gemini CLI's rewrite: characters Gemini refuses become ``_``, and a name over 63
    characters keeps its first 28 and last 32 around ``___``."""
    safe = _NOT_GEMINI_CHAR.sub("_", name)
    return f"{safe[:28]}___{safe[-32:]}" if len(safe) > 63 else safe


def _source(url: str, note: str = "") -> Source:
    return Source(url=url, checked=CHECKED, note=note)


_SDK_OUTPUT_ROOT = ClientRule(
    kind="output-root", level="error",
    consequence="the MCP TypeScript SDK it is built on refuses the whole tool list",
    source=_source("https://github.com/opentokenz/mcpx/issues/28",
                   "ToolSchema.outputSchema requires type object in @modelcontextprotocol/sdk; "
                   "each client here is built on it (VS Code's own client: uncertain)"))

_OPENAI_TOOL_CAP = ClientRule(
    kind="tool-count", level="error", limit=128,
    consequence="the OpenAI API refuses the request (split the server, or let users enable "
                "fewer tools)",
    source=_source("https://platform.openai.com/docs/api-reference/responses/create",
                   "the API's cap on tools; a client's own tools count too"))

_TOP_LEVEL_UNION = ("https://github.com/anthropics/claude-code/issues/88049",
                    "one such tool drops every tool of its server, with no error on either "
                    "side; #45106 and #4886 show the older 400 on every request")

CLAUDE_DESKTOP = Client(
    name="claude-desktop", title="Claude Desktop",
    providers=("anthropic",),
    rules=(
        ClientRule(kind="name", level="error", pattern=_API_NAME,
                   consequence="it refuses the server's tool list and no chat starts "
                               "(rename the tool)",
                   source=_source("https://github.com/loomle/loomle/issues/168",
                                  "the FrontendRemoteMcpToolDefinition error; also "
                                  "l22-io/orchard-mcp#14")),
        ClientRule(kind="output-dialect", level="error",
                   consequence="its validator rejects the tool",
                   source=_source("https://github.com/ankimcp/anki-mcp-server-addon/"
                                  "issues/75", "reported through mcp-remote; the same "
                                  "validator as Claude Code's")),
        _SDK_OUTPUT_ROOT,
    ))

CLAUDE_CODE = Client(
    name="claude-code", title="Claude Code",
    providers=("anthropic",),
    rewrite=_api_safe,
    rules=(
        ClientRule(kind="input-root", level="error",
                   consequence="every tool of the server is dropped without an error "
                               "(give the input schema one object root; move the "
                               "alternatives into a property)",
                   source=_source(*_TOP_LEVEL_UNION)),
        ClientRule(kind="output-dialect", level="error",
                   consequence="the tool is listed but every call fails",
                   source=_source("https://github.com/anthropics/claude-code/issues/88882",
                                  "the MCP TypeScript SDK emits draft-07 by default")),
        _SDK_OUTPUT_ROOT,
        ClientRule(kind="name-length", level="error", limit=64, prefix="mcp__<server>__",
                   consequence="the API refuses the request (shorten the tool or server "
                               "name)",
                   source=_source("https://github.com/sparfenyuk/mcp-proxy/issues/45",
                                  "the 64-character API limit on the prefixed name; "
                                  "reported, not documented by Claude Code")),
        ClientRule(kind="name-collision", level="error",
                   consequence="characters outside [a-zA-Z0-9_-] become _, and the model "
                               "can call only one of them (rename one)",
                   source=_source("https://code.claude.com/docs/en/mcp",
                                  "the mcp__<server>__<tool> form is documented; the "
                                  "rewrite of other characters to _ is not, and uncertain")),
    ))

CODEX = Client(
    name="codex", title="Codex CLI",
    providers=("openai-responses",),
    rules=(
        ClientRule(kind="name", level="error", pattern=r"^[a-zA-Z0-9_-]+$",
                   consequence="the OpenAI API refuses every request while the server is "
                               "enabled (rename the tool)",
                   source=_source("https://github.com/openai/codex/issues/8174",
                                  "open when checked: Codex sends the MCP name as it is")),
        _OPENAI_TOOL_CAP,
    ))

GEMINI_CLI = Client(
    name="gemini-cli", title="Gemini CLI",
    providers=("gemini-json-schema",),
    providers_note="MCP input schemas go to the model as parametersJsonSchema",
    rewrite=_gemini_safe,
    rules=(
        ClientRule(kind="name-length", level="warning", limit=63,
                   consequence="it shortens the name in the middle (keep names short)",
                   source=_source("https://github.com/google-gemini/gemini-cli/pull/602")),
        ClientRule(kind="name-collision", level="error",
                   consequence="refused characters become _ and long names are shortened, "
                               "so the model can call only one of them (rename one)",
                   source=_source("https://github.com/google-gemini/gemini-cli/pull/602")),
        _SDK_OUTPUT_ROOT,
    ))

CURSOR = Client(
    name="cursor", title="Cursor",
    providers=("anthropic", "openai"),
    providers_note="the model is the user's choice; Claude and GPT models are the usual ones",
    rules=(
        ClientRule(kind="name", level="error", pattern=r"^[a-zA-Z0-9_-]+$",
                   consequence="the tool is filtered out (rename it)",
                   source=_source("https://github.com/webstudio-is/webstudio/issues/5960",
                                  "its message names letters, digits and _ only; tools "
                                  "with - are widely used in Cursor, so - is allowed here")),
        ClientRule(kind="name-length", level="error", limit=60, prefix="<server>:",
                   consequence="the tool is filtered out (shorten the tool or server name)",
                   source=_source("https://github.com/ComposioHQ/composio/issues/2788",
                                  "server and tool name together; also "
                                  "executeautomation/mcp-playwright#145")),
        ClientRule(kind="tool-count", level="warning", limit=40,
                   consequence="older versions send only the first 40 tools to the model; "
                               "newer ones warn past 80 (let users enable fewer tools)",
                   source=_source("https://github.com/bun913/mcp-testrail/issues/6",
                                  "40 in Cursor's documentation in 2025; 80 per "
                                  "Snowflake-Labs/mcp#77; the current limit is uncertain")),
        ClientRule(kind="input-root", level="error",
                   consequence="a Claude model refuses the request",
                   source=_source("https://github.com/anthropics/claude-code/issues/4886",
                                  "the Anthropic API's rule, met when a Claude model is "
                                  "chosen; not reproduced in Cursor itself")),
    ))

VSCODE = Client(
    name="vscode", title="VS Code (Copilot)",
    providers=("openai",),
    providers_note="the model is the user's choice; GPT models are Copilot's default",
    rewrite=_api_safe,
    rules=(
        ClientRule(kind="name", level="warning", pattern=r"^[a-zA-Z0-9_-]+$",
                   consequence="it warns and renames the tool (. becomes _)",
                   source=_source("https://github.com/microsoft/vscode/issues/308463",
                                  "the warning names [a-z0-9_-]; upper case is not "
                                  "reported refused")),
        ClientRule(kind="name-length", level="error", limit=64, prefix="mcp_<server>_",
                   consequence="the model API refuses the request (shorten the tool or "
                               "server name)",
                   source=_source("https://github.com/microsoft/vscode/issues/243602",
                                  "the prefix form is uncertain across versions")),
        ClientRule(kind="name-collision", level="error",
                   consequence="after its renaming the model can call only one of them "
                               "(rename one)",
                   source=_source("https://github.com/github/copilot-cli/issues/2581",
                                  "VS Code renames . to _; copilot-cli#1879 shows the "
                                  "Copilot CLI refusing the same names outright")),
        ClientRule(kind="tool-count", level="error", limit=128,
                   consequence="a request with more tools is refused (let users enable "
                               "fewer tools)",
                   source=_source("https://code.visualstudio.com/docs/copilot/chat/"
                                  "chat-tools", "128 tools per chat request")),
        _SDK_OUTPUT_ROOT,
    ))

CHATGPT = Client(
    name="chatgpt", title="ChatGPT (OpenAI connectors)",
    providers=("openai-responses",),
    rules=(
        ClientRule(kind="name", level="error", pattern=_OPENAI_NAME,
                   consequence="the OpenAI API refuses the tool (rename it)",
                   source=_source("https://platform.openai.com/docs/guides/function-calling",
                                  "the function name rule; connectors list MCP tools as "
                                  "functions")),
        _OPENAI_TOOL_CAP,
        ClientRule(kind="description-length", level="warning", limit=1024,
                   consequence="the description may be refused or cut (shorten it)",
                   source=_source("https://platform.openai.com/docs/guides/function-calling",
                                  "1024 is the limit OpenAI's API has reported for "
                                  "function descriptions; not on the page itself")),
        ClientRule(kind="refs", level="warning",
                   consequence="a connector that strips them leaves the parameter untyped",
                   source=_source("https://developers.openai.com/apps-sdk/reference",
                                  "reported of some connectors, not documented; inline "
                                  "definitions to be safe")),
    ))

CLAUDE_API_STRICT = Client(
    name="claude-strict", title="Claude API strict tool use",
    providers=("anthropic",),
    providers_note="an agent that sends every tool with strict: true (LangChain's "
                   "create_agent does)",
    rules=(
        ClientRule(kind="tool-count", level="error", limit=20,
                   consequence="the API refuses the request (send fewer tools strict)",
                   source=_source("https://platform.claude.com/docs/en/agents-and-tools/"
                                  "tool-use/strict-tool-use", "also camel-ai/camel#4171")),
        ClientRule(kind="strict-optional", level="error", limit=24,
                   consequence="the API refuses the request (make some parameters "
                               "required, or some tools non-strict)",
                   source=_source("https://github.com/mozilla/bugbug/pull/6129",
                                  "counted through nested objects and array items, as "
                                  "elizaOS/eliza#16516 measured")),
        ClientRule(kind="strict-unions", level="error", limit=16,
                   consequence="the API refuses the request (replace unions, or make some "
                               "tools non-strict)",
                   source=_source("https://github.com/camel-ai/camel/pull/4171",
                                  "Optional[X] is a union; bugbug#6129 hit it")),
        ClientRule(kind="input-root", level="error",
                   consequence="the API refuses the request",
                   source=_source("https://github.com/anthropics/claude-code/issues/4886")),
    ))
