"""Every service package has the same roles, each in the file of its name (ARCHITECTURE.md,
"Where code lives"): ``service.py`` (the ``TableService``), ``planner.py`` (pure planning),
``node.py`` (the plan node made from the planner's result), ``apply.py`` (apply: re-derive, then
execute only the approved intersection) and ``validate.py`` (the up-front check of an approved
node). What is particular to one service sits beside them under names that say so. What writes
the table's instants is the service's executor, one floor down in ``maintainer.executors``
(``executors/<name>/`` or ``executors/<name>.py``), which its ``apply.py`` calls."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVICES = Path(__file__).resolve().parents[3] / "maintainer" / "services"
EXECUTORS = SERVICES.parent / "executors"
ROLES = ("service", "planner", "node", "apply", "validate")
SHARED = {"common"}


def _service_packages() -> list[Path]:
    return sorted(p for p in SERVICES.iterdir() if (p / "__init__.py").exists() and p.name not in SHARED)


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}


def _functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]


@pytest.mark.parametrize("package", _service_packages(), ids=lambda p: p.name)
def test_every_service_package_has_every_role(package: Path) -> None:
    missing = [role for role in ROLES if not (package / f"{role}.py").exists()]
    assert missing == [], f"services/{package.name} lacks {missing}"


@pytest.mark.parametrize("package", _service_packages(), ids=lambda p: p.name)
def test_planning_modules_do_not_apply(package: Path) -> None:
    """Applying lives in apply.py (and writing in the executor), never in node.py or planner.py."""
    for role in ("node", "planner"):
        applying = [
            n for n in _functions(package / f"{role}.py") if n.startswith(("apply_", "execute_", "run_"))
        ]
        assert applying == [], f"services/{package.name}/{role}.py applies: {applying}"


@pytest.mark.parametrize("package", _service_packages(), ids=lambda p: p.name)
def test_every_service_has_its_executor_one_floor_down(package: Path) -> None:
    executor = EXECUTORS / package.name
    assert (executor / "__init__.py").exists() or executor.with_suffix(".py").exists(), (
        f"services/{package.name} writes instants but executors/{package.name} does not exist"
    )
    assert not (package / "executor.py").exists(), (
        f"services/{package.name}/executor.py belongs in executors/"
    )


@pytest.mark.parametrize("package", _service_packages(), ids=lambda p: p.name)
def test_apply_calls_the_services_executor(package: Path) -> None:
    name = f"maintainer.executors.{package.name}"
    imported = _imported_modules(package / "apply.py")
    assert any(m == name or m.startswith(f"{name}.") for m in imported), (
        f"services/{package.name}/apply.py does not call {name}"
    )
