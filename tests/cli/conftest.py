"""The command-line tests run in a plain terminal from the repository root (the shared
``plain_terminal`` fixture, ``tests/conftest.py``)."""

import pytest


@pytest.fixture(autouse=True)
def _plain(plain_terminal: None) -> None:
    pass
