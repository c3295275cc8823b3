"""The package's import contracts (``[tool.importlinter]`` in pyproject.toml):

* the layers (ARCHITECTURE.md, "Floors"): imports point one way, from commands down to the catalog, errors
  and the clock. A back-arrow (say, a planner importing the runner, or the Hudi model importing
  a service) fails the test command;
* the table services are independent: no service package imports another, even indirectly
  (what they share is in ``services.common`` and ``services.base``);
* so are their executors, one floor down: no executor imports another (what they share is in
  ``executors.common`` and ``executors.faults``);
* the one exception, ``services.metadata`` (the metadata table's own upkeep runs the clean and
  archive planners on the metadata table), is imported by no other service."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = {"common"}
COMPOSITE = {"metadata"}
"""Services built on the others' planners (outside the independence contract, forbidden to them)."""


def _lint_imports() -> str:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    return result.stdout


def test_imports_point_down_the_layers_and_services_do_not_import_each_other() -> None:
    output = _lint_imports()
    assert "4 kept, 0 broken" in output
    assert "imports point down the layers" in output and "table services do not import each other" in output
    assert "executors do not import each other" in output
    assert "the metadata service runs the others' planners" in output


def test_every_service_package_is_in_the_independence_contract() -> None:
    """A new service package is added to the contract (else it could import the others)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    contract = text.split('type = "independence"', 1)[1].split("]", 1)[0]
    listed = re.findall(r'"maintainer\.services\.(\w+)"', contract)
    services = ROOT / "maintainer" / "services"
    packages = {p.name for p in services.iterdir() if (p / "__init__.py").exists()} - SHARED - COMPOSITE
    assert sorted(listed) == sorted(packages)
    forbidden = text.split("forbidden_modules = [", 1)[1].split("]", 1)[0]
    assert sorted(re.findall(r'"maintainer\.services\.(\w+)"', forbidden)) == sorted(COMPOSITE)


def test_every_executor_is_in_the_executors_independence_contract() -> None:
    """A new executor (package or module) is added to the contract (else it could import the others)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    contract = text.split('name = "executors do not import each other', 1)[1].split("]", 1)[0]
    listed = re.findall(r'"maintainer\.executors\.(\w+)"', contract)
    executors = ROOT / "maintainer" / "executors"
    packages = {p.name for p in executors.iterdir() if (p / "__init__.py").exists()} - SHARED
    modules = {p.stem for p in executors.glob("*.py")} - {"__init__", "faults"}
    assert sorted(listed) == sorted(packages | modules)
