"""Fixtures for the provider, lint, drift and pytest-plugin tests."""

from __future__ import annotations

import pytest

from agentforge_cli import ToolSpecification, build_local_tools
from sample_tools import crm, shop, weather


@pytest.fixture(scope="session")
def sample_specs() -> list[ToolSpecification]:
    """Every tool of the three sample modules (crm, weather, shop)."""
    return list(build_local_tools([crm.CrmTools(), weather, shop]))


@pytest.fixture(scope="session")
def shop_specs() -> dict[str, ToolSpecification]:
    """The shop's tools by name."""
    return {spec.name: spec for spec in build_local_tools([shop])}
