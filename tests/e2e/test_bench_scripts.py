"""The benchmarks stay runnable: each script imports and answers ``--help`` (CI never runs them
in full, so a rename in the package would otherwise break one unnoticed). ``--help`` must work
without the benchmark-only extras (deltalake), as on a machine set up by ``.ci/bootstrap``: the
scripts run with those modules made unimportable, whether or not this venv has them."""

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


BENCH_ONLY_EXTRAS = ("deltalake",)


def without_bench_extras(script: Path) -> str:
    """Python code that runs ``script --help`` as ``__main__`` with the bench-only extras blocked."""
    return (
        "import runpy, sys\n"
        f"for name in {BENCH_ONLY_EXTRAS!r}:\n"
        "    sys.modules[name] = None\n"
        f"sys.path.insert(0, {str(script.parent)!r})\n"
        f"sys.argv = [{str(script)!r}, '--help']\n"
        f"runpy.run_path({str(script)!r}, run_name='__main__')\n"
    )


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_benchmark_answers_help_without_the_bench_extras(script: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", without_bench_extras(BENCH / script)],
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
