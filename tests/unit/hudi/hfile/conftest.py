"""Session fixtures of the HFile tests: the fixture tables' HFiles, read once per session."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.unit.hudi.hfile.fixture_hfiles import FixtureHFile, fixture_hfiles


@pytest.fixture(scope="session")
def hfiles_of(hudi_fixtures_root: Path) -> Callable[[str], list[FixtureHFile]]:
    """The HFiles of a fixture table's metadata table, by fixture name (unpacked once)."""
    cache: dict[str, list[FixtureHFile]] = {}

    def get(name: str) -> list[FixtureHFile]:
        if name not in cache:
            cache[name] = fixture_hfiles(name, hudi_fixtures_root)
        return cache[name]

    return get
