"""The integration tests' shared servers and tool modules live in this folder, so that the
tests in its subfolders (``mcp/client``, ``mcp/server``, ``mcp/record``, ``pytest``,
``targets``) import them by name: pytest puts a conftest's folder on ``sys.path``."""
