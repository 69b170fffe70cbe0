"""The ``agentforge`` command line: a thin typer + rich face over the core library."""
