"""pytest route of ``agentforge tools fuzz``: ``pytest --agentforge-fuzz`` adds one test
item per tool of the configured targets (the same targets as the plugin's fixtures).

Each item fuzzes its tool as the command does and fails with the findings and the
commands reproducing them; a destructive tool is skipped, and so is an MCP tool not marked
``readOnlyHint: true``. Python tools run under the effect guard
(:mod:`~agentforge_cli.fuzz.effects`) unless ``--agentforge-fuzz-allow-effects`` is given;
the calls it stopped do not fail the item: they are listed in the terminal summary
("agentforge fuzz: blocked effects") and in the item's ``user_properties``. Ini options:
``agentforge_fuzz_examples`` (calls per tool, default 200), ``agentforge_fuzz_seed``
(default 0, so the suite is repeatable) and ``agentforge_fuzz_timeout`` (seconds, default
5). Registered by :mod:`~agentforge_cli.integrations.pytest.plugin`; hypothesis is imported
only when the option is given.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentforge_cli.integrations.pytest.items import RouteItem

__all__ = ["ALLOW_EFFECTS_OPTION", "FUZZ_OPTION", "FuzzItem"]

FUZZ_OPTION = "--agentforge-fuzz"
ALLOW_EFFECTS_OPTION = "--agentforge-fuzz-allow-effects"
"""Let the fuzzed Python tools write files, reach the network and start processes."""
_BLOCKED = pytest.StashKey[list[str]]()
"""The terminal summary's lines about blocked effects."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agentforge", "agentforge tool schemas")
    group.addoption(FUZZ_OPTION, action="store_true", default=False,
                    help="add one test per agentforge tool that fuzzes it with the inputs "
                         "its schema allows (calls the real tools)")
    group.addoption(ALLOW_EFFECTS_OPTION, action="store_true", default=False,
                    help="let the tools fuzzed by --agentforge-fuzz write files outside the "
                         "temporary directory, reach other hosts than loopback and start "
                         "processes (blocked by default)")
    parser.addini("agentforge_fuzz_examples", default="200",
                  help="calls per tool for --agentforge-fuzz")
    parser.addini("agentforge_fuzz_seed", default="0", help="seed for --agentforge-fuzz")
    parser.addini("agentforge_fuzz_timeout", default="5",
                  help="seconds a call may run under --agentforge-fuzz before it is a hang")


class FuzzFailure(Exception):
    """The tool has findings (shown without a traceback).

    An internal signal, outside the ``AgentForgeError`` tree: raised by
    :meth:`FuzzItem.runtest` for pytest, whose report shows its message through
    ``repr_failure``; no caller catches it.
    """


class FuzzItem(RouteItem):
    """Fuzz one tool; fails on a crash, hang, bad result or schema-binding mismatch."""

    ROUTE = "agentforge fuzz"
    FAILURE = FuzzFailure

    def __init__(self, *, tool: str, context: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tool = tool
        self.context = context

    def runtest(self) -> None:
        if "error" in self.context:
            raise FuzzFailure(self.context["error"])
        from agentforge_cli.fuzz.engine import fuzz_tool
        from agentforge_cli.fuzz.fuzz_report import describe

        service = self.context["service"]
        spec = next(s for s in service.specifications if s.name == self.tool)
        report = fuzz_tool(service, spec, self.context["options"], self.context["targets"])
        if report.skipped:
            pytest.skip(report.skipped)
        if report.blocked:
            from agentforge_cli.fuzz.fuzz_report import blocked_text

            text = blocked_text(report)
            self.user_properties.append(("agentforge_fuzz_blocked", text))
            self.config.stash.setdefault(_BLOCKED, []).append(
                f"{report.name}: " + text.replace("\n", "\n  "))
        if report.failed:
            lines = [f"{report.name}: {report.examples} calls"]
            if report.error:
                lines.append(f"  {report.error}")
            for finding in report.findings:
                lines += [f"  {describe(finding)}", f"    arguments: {finding.arguments}",
                          f"    reproduce: {finding.command}"]
            raise FuzzFailure("\n".join(lines))

    @property
    def subject(self) -> str:
        return self.tool


def _context(config: pytest.Config) -> tuple[list[str], dict[str, Any]]:
    """The tool names to fuzz and what every item shares (or the error that stops them)."""
    from agentforge_cli.fuzz.requirements import INSTALL_HINT, missing_modules

    missing = missing_modules()
    if missing:
        return ["(not run)"], {"error": f"needs {', '.join(missing)}: {INSTALL_HINT}"}
    from agentforge_cli.core.run.service import ToolService
    from agentforge_cli.errors import TargetError
    from agentforge_cli.fuzz.engine import FuzzOptions
    from agentforge_cli.integrations.mcp.server.served import served_tool_names
    from agentforge_cli.integrations.pytest.plugin import configured_targets, project_options
    from agentforge_cli.integrations.targets.loading import load_tools

    try:
        examples = int(config.getini("agentforge_fuzz_examples"))
        seed = int(config.getini("agentforge_fuzz_seed"))
        timeout = float(config.getini("agentforge_fuzz_timeout"))
        source = configured_targets(config)
        strict = project_options(config)["strict"]
        service = ToolService().tools(load_tools(source, propagate_execution_errors=True,
                                                 strict=strict, timeout=timeout))
    except ValueError as exc:
        return ["(not run)"], {"error": f"bad agentforge_fuzz_* ini option: {exc}"}
    except TargetError as exc:
        return ["(not run)"], {"error": exc.message + (f"\n  hint: {exc.hint}"
                                                       if exc.hint else "")}
    except pytest.fail.Exception as exc:
        return ["(not run)"], {"error": str(exc.msg)}
    options = FuzzOptions(examples=examples, seed=seed,
                          allow_effects=config.getoption(ALLOW_EFFECTS_OPTION),
                          served=served_tool_names(service))
    return service.names, {"service": service, "targets": source.specs, "options": options}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    if not config.getoption(FUZZ_OPTION):
        return
    names, context = _context(config)
    items.extend(FuzzItem.from_parent(session, name=f"agentforge_fuzz[{name}]",
                                      nodeid=f"agentforge_fuzz[{name}]", tool=name,
                                      context=context) for name in names)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config
                            ) -> None:
    """The calls the effect guard stopped, per tool (they passed: not failures)."""
    lines = config.stash.get(_BLOCKED, [])
    if lines:
        terminalreporter.section("agentforge fuzz: blocked effects")
        for line in lines:
            terminalreporter.write_line(line)
