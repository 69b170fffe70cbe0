"""README.md and docs/*.md: their links resolve, and they refer to nothing outside the repo."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
IDS = [page.relative_to(ROOT).as_posix() for page in PAGES]

LINK = re.compile(r"\]\(([^)\s]+)\)")
DANGLING = re.compile(r"\bSPEC\b|\b[Tt]he seed\b|\b[Ss]eed's\b|\b[Ss]eed (?:test|view|default)")
"""Words that pointed at design documents outside the repository (case-sensitive: the
module ``core.spec`` is fine)."""


def anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_relative_links_resolve(page: Path):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # an absolute URL
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        missing_anchor = bool(anchor) and linked.suffix == ".md" and (
            not linked.exists() or anchor not in anchors(linked))
        if not linked.exists() or missing_anchor:
            broken.append(target)
    if broken:
        pytest.fail(f"{page.name} links to what does not exist: {broken}", pytrace=False)


@pytest.mark.parametrize("page", PAGES, ids=IDS)
def test_words_refer_to_nothing_outside_the_repository(page: Path):
    lines = page.read_text(encoding="utf-8").splitlines()
    found = [f"{n}: {line.strip()}" for n, line in enumerate(lines, 1) if DANGLING.search(line)]
    assert found == []
