"""The client rules as Markdown, for ``docs/checks.md`` (a test keeps the page equal to
:func:`clients_markdown`, so the page cannot drift from the registry)."""

from __future__ import annotations

from agentforge_cli.schema.clients.base import RULE_KINDS, Client, ClientRule

__all__ = ["clients_markdown"]


def clients_markdown(clients: tuple[Client, ...] | None = None) -> str:
    """A matrix of rule kinds x clients (each cell: level and limit), then one row per
    rule with its source, the date it was checked and what is uncertain about it."""
    if clients is None:
        from agentforge_cli.schema.clients import REGISTRY

        clients = REGISTRY
    lines = ["| rule | " + " | ".join(f"`{c.name}`" for c in clients) + " |",
             "| --- |" + " :---: |" * len(clients)]
    for kind, about in RULE_KINDS.items():
        cells = [_cell(c.rule(kind)) for c in clients]
        if any(cell != "—" for cell in cells):
            lines.append(f"| `{kind}`: {about} | " + " | ".join(cells) + " |")
    lines.append("| providers linted | " + " | ".join(
        ", ".join(f"`{p}`" for p in c.providers) or "—" for c in clients) + " |")
    lines += ["", "| client | rule | source | checked | note |", "| --- | --- | --- | --- | --- |"]
    for client in clients:
        for rule in client.rules:
            lines.append(f"| {client.title} | `{client.name}:{rule.kind}` | "
                         f"<{rule.source.url}> | {rule.source.checked} | "
                         f"{_escape(rule.source.note)} |")
    return "\n".join(lines) + "\n"


def _cell(rule: ClientRule | None) -> str:
    if rule is None:
        return "—"
    limit = f" {rule.limit}" if rule.limit is not None else ""
    pattern = f" `{_escape(rule.pattern)}`" if rule.pattern else ""
    return f"{rule.level}{limit}{pattern}"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")
