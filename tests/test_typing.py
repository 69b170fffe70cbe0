"""The package is typed: it ships ``py.typed``, and every silenced type error says why.

``make lint`` runs mypy at strict (``[tool.mypy]`` in pyproject.toml); these tests keep what
the checker cannot judge: the marker is packaged, and no ``type: ignore`` stands bare.
"""

from __future__ import annotations

import io
import re
import tokenize
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "agentforge_cli"

_IGNORE = re.compile(r"#\s*type:\s*ignore\b")
_EXPLAINED = re.compile(r"#\s*type:\s*ignore\[[\w-]+(?:,\s*[\w-]+)*\]\s+#\s*\S")
"""An ignore naming its error codes, then a comment of its own: the reason."""


def unexplained_ignores(package: Path) -> list[str]:
    """``file:line`` of every ``type: ignore`` comment without error codes or a reason."""
    found = []
    for path in sorted(package.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT and _IGNORE.search(token.string) and (
                    not _EXPLAINED.search(token.string)):
                found.append(f"{path.relative_to(package.parent)}:{token.start[0]}")
    return found


def test_every_type_ignore_says_why():
    assert unexplained_ignores(PACKAGE) == []


@pytest.mark.parametrize("comment, explained", [
    ("# type: ignore", False),
    ("# type: ignore[misc]", False),
    ("# type: ignore  # typer's stub lacks it", False),
    ("# type: ignore[attr-defined]  # typer's stub lacks it", True),
    ("# type: ignore[misc, valid-type]  # a base chosen at run time", True),
])
def test_an_ignore_needs_codes_and_a_reason(tmp_path, comment, explained):
    (tmp_path / "module.py").write_text(f"x = 1  {comment}\n", encoding="utf-8")
    expected = [] if explained else [f"{tmp_path.name}/module.py:1"]
    assert unexplained_ignores(tmp_path) == expected


def test_only_comments_count(tmp_path):
    (tmp_path / "module.py").write_text('x = "# type: ignore"\n', encoding="utf-8")
    assert unexplained_ignores(tmp_path) == []


def test_py_typed_ships_in_the_wheel():
    assert (PACKAGE / "py.typed").is_file()
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["hatch"]["build"]["targets"]["wheel"]
    # hatch packs every file of a listed package unless told otherwise
    assert "agentforge_cli" in wheel["packages"]
    assert not {"exclude", "only-include", "include"} & wheel.keys(), wheel


def test_mypy_is_strict_over_the_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True
    assert config["files"] == ["agentforge_cli"]
    for override in config.get("overrides", []):  # only untyped libraries are let off
        assert set(override) == {"module", "ignore_missing_imports"}, override
