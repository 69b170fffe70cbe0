"""``docs/pytest-plugin.md`` names every command-line and ini option the plugin adds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "pytest-plugin.md"
OPTION = re.compile(r"^\s+(--agentforge[a-z-]*|agentforge_[a-z_]+)\b", re.M)


def test_every_option_of_the_plugin_is_on_its_page():
    shown = subprocess.run([sys.executable, "-m", "pytest", "--help", "-p", "no:cacheprovider"],
                           capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    options = set(OPTION.findall(shown.stdout))
    assert {"--agentforge-tools", "--agentforge-fuzz", "agentforge_replay"} <= options
    page = PAGE.read_text(encoding="utf-8")
    missing = [option for option in options
               if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", page)]
    assert sorted(missing) == []
