"""CI runs exactly the test command the README gives, and that command runs the static checks."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_test_command() -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(r"# the whole test suite[^\n]*\n(?P<command>[^\n]+)\n", text)
    assert match, "README.md: the test command line after '# the whole test suite' is missing"
    return match.group("command")


def test_ci_runs_the_readme_test_command() -> None:
    lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and line[0] != "#"]
    assert lines[-1] == readme_test_command()


def test_the_test_command_runs_the_static_checks_before_pytest() -> None:
    command = readme_test_command()
    assert command.index("bash .ci/check") < command.index("-m pytest")
    check = (ROOT / ".ci" / "check").read_text()
    for tool in ("ruff check", "ruff format --check", "mypy"):
        assert tool in check
