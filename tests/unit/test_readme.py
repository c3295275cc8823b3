"""The README tells a newcomer what works: the commands of "Using it" say which ``maintainer``
runs them (the set-up's venv), and installing names the checkout, never a package that is not
published (issue 30)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def section(title: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"^## {re.escape(title)}\n(?P<body>.*?)(?=^## )", text, re.S | re.M)
    assert match, f"README.md has no section '{title}'"
    return match.group("body")


def test_using_it_says_how_to_run_the_venvs_maintainer() -> None:
    before_the_commands = section("Using it").split("```", 1)[0]
    assert ".venv/bin/maintainer" in before_the_commands
    assert "source .venv/bin/activate" in before_the_commands


def test_no_install_names_an_unpublished_package() -> None:
    text = (ROOT / "README.md").read_text()
    assert not re.search(r"pip install '?maintainer\b", text), "maintainer is not on PyPI"
    assert "installed from this checkout" in section("Running on a cluster")
