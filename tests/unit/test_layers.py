"""The package's layers (DESIGN.md §2; the contract in pyproject.toml ``[tool.importlinter]``):
imports point one way, from commands down to the catalog and errors. A back-arrow (say, a
planner importing the runner, or the Hudi model importing a service) fails the test command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_imports_point_down_the_layers() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "1 kept, 0 broken" in result.stdout
