"""docs/architecture.md describes the package as it is: every module a stage's row of the
stages table names exists in that stage, and every module drawing for the command line
(``cli/render/``) is named."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "agentforge_cli"
STAGE_ROW = re.compile(r"^\| `(\w+)/` \|(.*)$", re.M)
MODULE = re.compile(r"`(?:[\w/]+/)?(\w+\.py)`")


def stage_rows() -> dict[str, str]:
    return dict(STAGE_ROW.findall(PAGE.read_text(encoding="utf-8")))


def named_but_missing(rows: dict[str, str]) -> list[str]:
    missing = []
    for stage, text in rows.items():
        present = {path.name for path in (PACKAGE / stage).rglob("*.py")}
        missing += [f"{stage}/{name}" for name in MODULE.findall(text)
                    if not name.startswith("test_") and name not in present]
    return missing


def test_every_stage_has_a_row():
    stages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert set(stage_rows()) == stages


def test_every_module_the_page_names_exists():
    assert named_but_missing(stage_rows()) == []


def test_a_module_that_is_gone_is_named():
    rows = stage_rows()
    rows["cli"] += " `render.py` draws everything"
    assert named_but_missing(rows) == ["cli/render.py"]


def test_every_drawing_module_is_named():
    row = stage_rows()["cli"]
    modules = sorted(path.name for path in (PACKAGE / "cli" / "render").glob("*.py")
                     if path.name != "__init__.py")
    assert [name for name in modules if f"`{name}`" not in row] == []
