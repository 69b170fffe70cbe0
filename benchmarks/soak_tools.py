"""The tool the soak run (``benchmarks/soak.py``) calls: as cheap as a tool can be, so the
run measures the server, not the tool."""


def echo(n: int) -> int:
    """Return the number it is given.

    Args:
        n: Any integer.
    """
    return n
