"""Find and unpack the real Hudi tables of ``../shared/fixtures/hudi-rs``.

The fixtures are never copied into the repository. They are found at
``$MAINTAINER_HUDI_FIXTURES`` or ``<repo>/../shared/fixtures/hudi-rs``; each zip is
unpacked once per test session into a temporary directory (``__MACOSX`` dropped),
and tests that change a table take their own copy with :func:`copy_table`.
"""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ENV_VAR = "MAINTAINER_HUDI_FIXTURES"


def fixtures_dir() -> Path | None:
    """The fixture directory, or None where neither location exists."""
    configured = os.environ.get(ENV_VAR)
    candidates = [Path(configured)] if configured else []
    candidates.append(REPO_ROOT.parent / "shared" / "fixtures" / "hudi-rs")
    for candidate in candidates:
        if candidate.is_dir() and any(candidate.glob("*.zip")):
            return candidate
    return None


def missing_reason() -> str:
    return (
        f"Hudi fixture tables not found: set {ENV_VAR} or place shared/fixtures/hudi-rs "
        f"beside the repository ({REPO_ROOT.parent / 'shared'})"
    )


def fixture_names() -> list[str]:
    directory = fixtures_dir()
    if directory is None:
        return []
    return sorted(p.stem for p in directory.glob("*.zip"))


def fixture_names_holding(suffix: str) -> list[str]:
    """The fixtures whose zip holds a member ending with ``suffix``."""
    directory = fixtures_dir()
    if directory is None:
        return []
    names = []
    for name in fixture_names():
        with zipfile.ZipFile(directory / f"{name}.zip") as archive:
            if any(m.endswith(suffix) for m in archive.namelist()):
                names.append(name)
    return names


def metadata_fixture_names() -> list[str]:
    """The fixtures whose table has a metadata table (``.hoodie/metadata``), from the zips."""
    return fixture_names_holding(".hoodie/metadata/.hoodie/hoodie.properties")


@dataclass(frozen=True)
class FixtureTable:
    """An unpacked fixture: ``name`` is the zip's stem, ``path`` the table's base path."""

    name: str
    path: Path

    @property
    def is_lance(self) -> bool:
        return "lance" in self.name

    @property
    def is_mor(self) -> bool:
        return "_mor_" in self.name


def base_files(table: FixtureTable) -> Iterator[Path]:
    """Every Parquet base file of the table, outside .hoodie."""
    for directory, dirs, files in os.walk(table.path):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__MACOSX"]
        for name in sorted(files):
            if name.endswith(".parquet") and not name.startswith("."):
                yield Path(directory) / name


def unpack(name: str, into: Path) -> FixtureTable:
    """Unpack fixture ``name`` below ``into`` and return its table directory."""
    directory = fixtures_dir()
    if directory is None:
        raise FileNotFoundError(missing_reason())
    target = into / name
    if not target.exists():
        with zipfile.ZipFile(directory / f"{name}.zip") as archive:
            members = [m for m in archive.namelist() if not m.startswith("__MACOSX")]
            archive.extractall(target, members=members)
    tables = [p.parent.parent for p in target.glob("*/.hoodie/hoodie.properties")]
    if len(tables) != 1:
        raise FileNotFoundError(f"fixture {name}: expected one table directory, found {tables}")
    return FixtureTable(name, tables[0])


def copy_table(table: FixtureTable, into: Path) -> FixtureTable:
    """A private, writable copy of an unpacked fixture table."""
    target = into / table.name / table.path.name
    shutil.copytree(table.path, target)
    return FixtureTable(table.name, target)
