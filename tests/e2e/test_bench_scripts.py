"""The benchmarks stay runnable: each script imports and answers ``--help`` (CI never runs them
in full, so a rename in the package would otherwise break one unnoticed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(p.name for p in BENCH.glob("*.py") if '__name__ == "__main__"' in p.read_text())
LIBRARIES = sorted(p.name for p in BENCH.glob("*.py") if p.name not in SCRIPTS)


def test_the_benchmarks_are_found() -> None:
    assert {"compaction.py", "compaction_peer.py", "datagen.py", "listing.py", "scale.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_benchmark_answers_help(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


@pytest.mark.parametrize("module", LIBRARIES)
def test_a_benchmark_helper_imports(module: str) -> None:
    code = f"import sys; sys.path.insert(0, {str(BENCH)!r}); import {module.removesuffix('.py')}"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
