"""The project's ``[tool.agentforge]`` tables, read and checked."""
