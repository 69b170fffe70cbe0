"""Note-keeping tools, for the example of ``agentforge tools audit`` in docs/audit.md:
one annotated wrongly, one rightly, one not at all."""

from __future__ import annotations

from pathlib import Path

from agentforge_cli import tool

NOTES = Path("notes.txt")


@tool(annotations={"readOnlyHint": True, "idempotentHint": True})
def add_note(text: str) -> str:
    """Add a note at the end of notes.txt."""
    with NOTES.open("a", encoding="utf-8") as notes:
        notes.write(text.replace("\n", " ") + "\n")
    return "added"


@tool(annotations={"readOnlyHint": True, "openWorldHint": False})
def count_notes() -> int:
    """How many notes notes.txt holds."""
    return len(NOTES.read_text(encoding="utf-8").splitlines()) if NOTES.exists() else 0


@tool
def clear_notes() -> str:
    """Delete every note."""
    NOTES.unlink(missing_ok=True)
    return "cleared"
