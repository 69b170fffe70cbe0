"""docs/architecture.md describes the package as it is: every stage has a short row, every
module a row names exists in that stage, every drawing module of ``cli/render/`` is named,
the folder picture draws every folder of the package and nothing else, every package path
the page names exists, and every word of the glossary is used in the package."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "architecture.md"
PACKAGE = ROOT / "agentforge_cli"
STAGE_ROW = re.compile(r"^\| `(\w+)/` \|(.*)$", re.M)
MODULE = re.compile(r"`(?:[\w/]+/)?(\w+\.py)`")
PATH = re.compile(r"`((?:\w+/)+(?:\w+\.py)?)`")
TREE_LINE = re.compile(r"^(?P<indent>[│ ]*)(?:[├└]── )?(?P<name>\w+(?:/|\.py))(?:\s|$)")
GLOSSARY_ROW = re.compile(r"^\| `(\w+)` \|", re.M)
MAX_WORDS = 40


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def section(title: str) -> str:
    text = page()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def stage_rows() -> dict[str, str]:
    return dict(STAGE_ROW.findall(page()))


def named_but_missing(rows: dict[str, str]) -> list[str]:
    missing = []
    for stage, text in rows.items():
        present = {path.name for path in (PACKAGE / stage).rglob("*.py")}
        missing += [f"{stage}/{name}" for name in MODULE.findall(text)
                    if not name.startswith("test_") and name not in present]
    return missing


def drawn_folders(text: str) -> list[str]:
    """The paths the folder picture (the first ``text`` block of ``text``) draws, from the
    package's folder: ``core/``, ``core/define/handlers/``, ``errors.py``."""
    block = text.split("```text\n", 1)[1].split("```", 1)[0]
    lines = block.splitlines()
    assert lines[0] == "agentforge_cli/", "the picture starts at the package's folder"
    drawn, open_folders = [], []  # open_folders[d]: the folder now open at depth d
    for line in lines[1:]:
        found = TREE_LINE.match(line)
        assert found is not None, f"not a line of the picture: {line!r}"
        depth = len(found["indent"]) // 4
        del open_folders[depth:]
        path = "".join(open_folders) + found["name"]
        drawn.append(path)
        if path.endswith("/"):
            open_folders.append(found["name"])
    return drawn


def package_folders() -> set[str]:
    return {path.parent.relative_to(PACKAGE).as_posix() + "/"
            for path in PACKAGE.rglob("__init__.py") if path.parent != PACKAGE}


def paths_missing(text: str) -> list[str]:
    """The paths (``core/run/executor.py``, ``replay/transcripts/formats/``) ``text`` names
    that exist neither in the package nor, for ``tests/``, ``docs/`` and the package itself,
    in the repository."""
    missing = []
    for path in PATH.findall(text):
        base = ROOT if path.startswith(("tests/", "docs/", "agentforge_cli/")) else PACKAGE
        if not (base / path).exists():
            missing.append(path)
    return missing


def test_every_stage_has_a_row():
    stages = {path.name for path in PACKAGE.iterdir() if (path / "__init__.py").is_file()}
    assert set(stage_rows()) == stages


def test_every_stage_row_is_short():
    cells = {stage: text.split(" | ")[0] for stage, text in stage_rows().items()}
    assert {stage: len(cell.split()) for stage, cell in cells.items()
            if len(cell.split()) > MAX_WORDS} == {}


def test_every_module_the_page_names_exists():
    assert named_but_missing(stage_rows()) == []


def test_a_module_that_is_gone_is_named():
    rows = stage_rows()
    rows["cli"] += " `render.py` draws everything"
    assert named_but_missing(rows) == ["cli/render.py"]


def test_every_drawing_module_is_named():
    modules = sorted(path.name for path in (PACKAGE / "cli" / "render").glob("*.py")
                     if path.name != "__init__.py")
    assert [name for name in modules if f"`{name}`" not in page()] == []


def test_the_picture_draws_every_folder_and_nothing_else():
    drawn = drawn_folders(section("The folders"))
    folders = [path for path in drawn if path.endswith("/")]
    assert sorted(set(folders) - package_folders()) == []  # drawn but not there
    assert sorted(package_folders() - set(folders)) == []  # there but not drawn
    assert len(folders) == len(set(folders))
    assert [path for path in drawn if not (PACKAGE / path).exists()] == []


def test_the_picture_reads_nesting_and_a_misplaced_folder_is_named():
    picture = ("\n```text\nagentforge_cli/\n├── errors.py   the tree\n├── core/   x\n"
               "│   ├── bind/   y\n│   └── define/\n│       └── handlers/\n"
               "└── cli/\n    └── handlers/   moved\n```\n")
    drawn = drawn_folders(picture)
    assert drawn == ["errors.py", "core/", "core/bind/", "core/define/",
                     "core/define/handlers/", "cli/", "cli/handlers/"]
    assert sorted(set(drawn) - package_folders() - {"errors.py"}) == ["cli/handlers/"]


def test_every_path_the_page_names_exists():
    text = page()
    prose = "\n".join(line for line in text.splitlines() if not STAGE_ROW.match(line))
    assert paths_missing(prose) == []
    assert paths_missing("`integrations/mcp/client/gone/` and `core/run/gone.py`") == [
        "integrations/mcp/client/gone/", "core/run/gone.py"]


def test_every_glossary_word_is_used_in_the_package():
    words = GLOSSARY_ROW.findall(section("Glossary"))
    assert len(words) >= 20
    source = "\n".join(path.read_text(encoding="utf-8") for path in PACKAGE.rglob("*.py"))
    assert [word for word in words if not re.search(rf"\b{word}\b", source)] == []


def test_the_internal_signals_are_listed_on_the_page():
    errors = section("Errors")
    for name in ("ResultTooLarge", "UnserializableResult", "FuzzFailure", "ReplayFailure"):
        assert f"`{name}`" in errors, name
