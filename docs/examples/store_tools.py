"""The shopping list of docs/replay.md ("Fresh tools per conversation"): a tool with state."""

from agentforge_cli import tool


class Store:
    """A shopping list; each recorded conversation started with an empty one."""

    def __init__(self) -> None:
        self.items: list[str] = []

    @tool
    def add(self, item: str) -> str:
        """Add an item to the list and answer the whole list."""
        self.items.append(item)
        return ", ".join(self.items)


def make_store() -> Store:
    """A factory target: `docs/examples/store_tools.py:make_store()`."""
    return Store()


store = Store()
"""One list for every conversation: a module-level instance is shared."""
