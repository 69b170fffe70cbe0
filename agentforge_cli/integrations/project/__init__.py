"""A user's project set up for agentforge (``agentforge init``): its tool modules found,
``[tool.agentforge]`` added to ``pyproject.toml``, a first snapshot, pytest items and a
GitHub Actions workflow written, nothing overwritten."""
