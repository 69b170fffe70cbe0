"""`make demo` on a clean clone: how long the README's first line takes, and how big a
virtualenv it builds, beside creating an empty virtualenv in the same run."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_SECONDS = 45
MAX_MEGABYTES = 150


def _megabytes(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*")
               if path.is_file() and not path.is_symlink()) / 1e6


def demo_row(row: Callable[..., None]) -> None:
    env = {key: value for key, value in os.environ.items()
           if key not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_NO_CACHE_DIR"] = "1"  # a clean machine has no pip cache either
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "venv", f"{scratch}/empty"], check=True)
        empty = time.perf_counter() - started
        clone = Path(scratch) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        started = time.perf_counter()
        subprocess.run(["make", "demo", f"PYTHON={sys.executable}"], cwd=clone, env=env,
                       check=True, capture_output=True)
        seconds = time.perf_counter() - started
        size = _megabytes(clone / ".venv")
    row("make demo on a clean clone", f"{seconds:.0f} s, .venv {size:.0f} MB",
        f"an empty venv {empty:.1f} s", seconds / empty,
        f"<= {MAX_SECONDS} s, <= {MAX_MEGABYTES} MB",
        seconds <= MAX_SECONDS and size <= MAX_MEGABYTES)
