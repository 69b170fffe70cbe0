"""Constants shared by the ``tools fuzz`` tests (imported as ``fuzz_support``)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGETS = "tests/fuzz/fuzz_targets.py"
"""The purpose-built tools, one for each outcome (fuzz_targets.py)."""
