"""Constants and helpers shared by the command-line tests (imported as ``cli_support``)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRANSCRIPTS = ROOT / "sample_tools" / "transcripts"
CRM = "sample_tools.crm:CrmTools"
TABLE_LIST = (
    "[queryCustomer] 按客户名查询客户信息\n"
    "  parameters: { name: string (required), limit: integer (required) }\n"
    "    name: 客户名称\n"
    "    limit: 返回条数\n"
)


def command_paths() -> list[tuple[str, ...]]:
    """Every command and group of ``agentforge``, as the words that reach it (``()`` for
    the program itself, ``("tools", "list")``...), read from the click tree: a command
    added later is covered without editing a list."""
    import typer.main

    from agentforge_cli.cli.app import app

    paths: list[tuple[str, ...]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        paths.append(path)
        for name, sub in (getattr(command, "commands", None) or {}).items():
            if not getattr(sub, "hidden", False):
                walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return paths
