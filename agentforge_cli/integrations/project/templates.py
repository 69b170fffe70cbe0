"""The files ``agentforge init`` writes, as text: the pytest items (a ``conftest.py``
switching on the replay and fuzz routes, a test comparing the snapshot) and the GitHub
Actions workflow that ``docs/ci.md`` shows."""

from __future__ import annotations

__all__ = ["CONFTEST", "FOLDER", "REQUIREMENT_MARK", "SNAPSHOT", "TESTS", "TRANSCRIPTS",
           "WORKFLOW", "WORKFLOW_PATH", "workflow"]

FOLDER = "tests/agentforge"
SNAPSHOT = f"{FOLDER}/tools.snapshot.json"
TRANSCRIPTS = f"{FOLDER}/transcripts"
WORKFLOW_PATH = ".github/workflows/agentforge.yml"
REQUIREMENT_MARK = "@REQUIREMENT@"

CONFTEST = '''\
"""agentforge's checks of this project's tools as pytest items (written by `agentforge
init`; edit it freely, init never overwrites it).

The tools are those of [tool.agentforge] in pyproject.toml. Every test run here also
fuzzes each tool (agentforge_fuzz[TOOL]) and replays each call recorded under
transcripts/ (record some with `pytest --agentforge-record tests/agentforge/transcripts`).
"""

from pathlib import Path

TRANSCRIPTS = Path(__file__).parent / "transcripts"


def pytest_configure(config):
    config.option.agentforge_fuzz = True
    if TRANSCRIPTS.is_dir() and any(p.suffix == ".jsonl" for p in TRANSCRIPTS.iterdir()):
        config.option.agentforge_replay = [*config.option.agentforge_replay,
                                           str(TRANSCRIPTS)]
'''

TESTS = f'''\
"""The tools' schemas against their snapshot (written by `agentforge init`).

A breaking change (a parameter removed, renamed or made required...) fails; accept an
intended change with `pytest --agentforge-update-snapshots`.
"""

from agentforge_cli.integrations.pytest.plugin import assert_tools_match_snapshot


def test_no_breaking_change_to_the_tools(agentforge_specs):
    assert_tools_match_snapshot(agentforge_specs, "{SNAPSHOT}")
'''

WORKFLOW = f'''\
name: agentforge

on:
  push:
    branches: [main]
  pull_request:

jobs:
  tools:
    runs-on: ubuntu-latest
    env:
      # where CI installs agentforge from: a requirement pip understands
      AGENTFORGE: "{REQUIREMENT_MARK}"
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install the project and agentforge
        run: pip install -e . "$AGENTFORGE" pytest
      - name: Lint the tools and compare them with the snapshot
        run: >-
          agentforge tools check --snapshot {SNAPSHOT}
          --junit reports/check.xml --html reports/check.html
      - name: Breaking changes the pull request accepts into the snapshot
        if: github.event_name == 'pull_request'
        continue-on-error: true
        run: |
          git fetch --depth=1 origin "$GITHUB_BASE_REF"
          if git show "FETCH_HEAD:{SNAPSHOT}" > base.snapshot.json; then
            agentforge tools diff base.snapshot.json {SNAPSHOT}
          fi
      - name: Replay the recorded conversations
        if: hashFiles('{TRANSCRIPTS}/*.jsonl') != ''
        run: agentforge replay {TRANSCRIPTS} --junit reports/replay.xml --html reports/replay.html
      - name: Fuzz the tools
        run: agentforge tools fuzz --junit reports/fuzz.xml --html reports/fuzz.html
      - name: The project's tests, agentforge's pytest items among them
        run: pytest
      - name: Keep the reports
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: agentforge-reports
          path: reports/
'''


def workflow(requirement: str) -> str:
    """The workflow, installing agentforge from ``requirement``."""
    return WORKFLOW.replace(REQUIREMENT_MARK, requirement.replace('"', '\\"'))
