"""`make demo`, the README's first line, on a copy of the repository with no virtualenv.

It installs only what the demo shows (the package and hypothesis, for the fuzz step): no
test dependency lands in the new ``.venv``, which stays under 150 MB, and every step of the
tour prints what the README says it does. How long it takes is a row of `make bench`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# What `make demo` reads: the build files, the package and the tools it shows.
DEMO_FILES = ("Makefile", "pyproject.toml", "README.md", "agentforge_cli", "sample_tools")
MAX_VENV_MB = 150


def copy_for_demo(target: Path) -> Path:
    target.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in DEMO_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
    return target


def folder_megabytes(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*")
               if path.is_file() and not path.is_symlink()) / 1e6


def test_make_demo_installs_only_what_it_shows(tmp_path):
    clone = copy_for_demo(tmp_path / "clone")
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PYTHON=sys.executable if sys.version_info[:2] == (3, 11) else "python3",
               NO_COLOR="1", COLUMNS="80")
    done = subprocess.run(["make", "demo"], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=540, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    assert "[queryCustomer] 按客户名查询客户信息" in out  # tools list
    assert "customer:长路,limit:5" in out  # tools call, coerced
    assert 'has non-integer value for int: <5.5>' in out  # the wrong call, shown on purpose
    assert out.count("✓ 1 call replayed") == 3  # three replays, all matched
    assert "scrubbed: $.operation_id, $.started_at" in out  # the English tool set's replay
    assert "✓ 2 calls replayed" in out
    assert "crash: ZeroDivisionError" in out  # fuzz found the fragile tool's crash
    venv = clone / ".venv"
    installed = {path.name.split("-")[0].lower()
                 for path in venv.glob("lib/python*/site-packages/*.dist-info")}
    assert {"typer", "hypothesis", "agentforge_tools"} <= installed
    assert not installed & {"pytest", "mypy", "ruff", "openai", "mcp", "inspect_ai"}
    assert folder_megabytes(venv) < MAX_VENV_MB
    # run again: nothing is installed twice
    again = subprocess.run(["make", "-q", ".venv/.installed-demo"], cwd=clone, env=env,
                           capture_output=True, text=True, timeout=60, check=False)
    assert again.returncode == 0, "the demo's install stamp is out of date right after it ran"
