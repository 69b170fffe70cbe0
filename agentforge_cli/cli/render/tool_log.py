"""``--log``: the logging decorator's request and response blocks on standard error."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def tool_logging(enabled: bool) -> Iterator[None]:
    """While active, the ``agentforge.tools`` logger renders on stderr (when enabled)."""
    if not enabled:
        yield
        return
    import logging

    from agentforge_cli.cli.render.tool_log_handler import ToolLogHandler
    from agentforge_cli.core.observe.calllog import LOGGER_NAME

    logger = logging.getLogger(LOGGER_NAME)
    handler = ToolLogHandler(logging.INFO)
    saved = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
