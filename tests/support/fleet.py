"""A fleet of small generated tables sharing a folder's ``_defaults.yml``: copy-on-write tables
in tables/cow (their clean retention on line 2 of the folder's ``_defaults.yml``) and
merge-on-read tables in tables/mor (their compaction trigger on line 3 of its own)."""

from __future__ import annotations

from pathlib import Path

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec

COW_DEFAULTS = "tables/cow/_defaults.yml"
MOR_DEFAULTS = "tables/mor/_defaults.yml"


def cow_defaults(commits_retained: int, tags: str = "[fleet]") -> str:
    """Line 2 is the retention: the line a fleet-wide cut changes."""
    return f"clean:\n  commits_retained: {commits_retained}\narchive: {{enabled: false}}\ntags: {tags}\n"


def mor_defaults(max_delta_commits: int) -> str:
    """Line 3 is the compaction trigger."""
    trigger = f"  trigger:\n    max_delta_commits: {max_delta_commits}\n"
    return f"compaction:\n{trigger}archive: {{enabled: false}}\n"


def generate_lake(lake: Path, names: list[str], table_type: str, commits: int = 2) -> None:
    """Tiny tables (one partition, one file group, a few rows): about 50 ms each."""
    for index, name in enumerate(names):
        workload = WorkloadSpec(partitions=1, file_groups=1, commits=commits, rows_per_commit=5, seed=index)
        generate(str(lake / name), DatagenSpec(name, table_type, 6, workload))


def _list(folder: Path, lake: Path, names: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    entries = "".join(f"  - name: {name}\n    path: {lake / name}\n" for name in names)
    (folder / "tables.yml").write_text(f"version: 1\ntables:\n{entries}")


def fleet_project(root: Path, lake: Path, cow: list[str], mor: list[str]) -> Path:
    """A project listing ``cow`` in tables/cow and ``mor`` in tables/mor (generated under
    ``lake``), with a retention of 4 commits and a compaction trigger of 5 delta commits."""
    assert main(["init", str(root)]) == 0
    (root / "tables" / "example.yml").unlink()
    _list(root / "tables" / "cow", lake, cow)
    set_retention(root, 4)
    if mor:
        _list(root / "tables" / "mor", lake, mor)
        set_trigger(root, 5)
    return root


def set_retention(root: Path, commits_retained: int, tags: str = "[fleet]") -> None:
    (root / COW_DEFAULTS).write_text(cow_defaults(commits_retained, tags))


def set_trigger(root: Path, max_delta_commits: int) -> None:
    (root / MOR_DEFAULTS).write_text(mor_defaults(max_delta_commits))
