"""A project of two generated copy-on-write tables (``a`` and ``b``, ``engine: local``: no JVM)
whose applied state goes to a given ``state:`` location, for the state backend's tests through
the CLI (local folder) and on S3 servers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec

TABLES = ("a", "b")
SERVICES = "compaction: {enabled: false}, archive: {enabled: false}, clean: {commits_retained: 3}"
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class StateProject:
    root: Path

    def cli(self, *args: str) -> int:
        command, *rest = args
        return main([command, *rest, "--project-dir", str(self.root)])

    def cli_process(self, *args: str) -> subprocess.Popen[str]:
        """The same command in its own Python process (the environment of this one)."""
        command, *rest = args
        return subprocess.Popen(
            [sys.executable, "-m", "maintainer.cli", command, *rest, "--project-dir", str(self.root)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )

    def checkout(self, where: Path) -> StateProject:
        """A copy of the project folder (as another CI runner's checkout: its own target/)."""
        shutil.copytree(self.root, where, ignore=shutil.ignore_patterns("target"))
        return StateProject(where)

    def plan_md(self) -> str:
        return (self.root / "target" / "plan" / "plan.md").read_text()

    def retain(self, table: str, commits: int) -> None:
        """Change one table's clean retention in its manifest."""
        manifest = self.root / "tables" / f"{table}.yml"
        manifest.write_text(
            manifest.read_text().replace("commits_retained: 3", f"commits_retained: {commits}")
        )


def state_project(
    tmp_path: Path, state: str, storage_options: dict[str, Any] | None = None, *, in_profile: bool = False
) -> StateProject:
    """The project in ``tmp_path/project``, its tables in ``tmp_path/lake``; ``state`` is set
    in maintainer_project.yml, or in the profile's target when ``in_profile``."""
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    for n, table in enumerate(TABLES):
        path = tmp_path / "lake" / table
        workload = WorkloadSpec(partitions=2, file_groups=1, commits=6, rows_per_commit=10, seed=n)
        generate(str(path), DatagenSpec(table, "cow", 8, workload))
        manifest = f"version: 1\ntables:\n  - {{name: {table}, path: {path}, {SERVICES}}}\n"
        (root / "tables" / f"{table}.yml").write_text(manifest)
    (root / "tables" / "example.yml").unlink()
    dev: dict[str, Any] = {"engine": "local", "threads": 2}
    if storage_options:
        dev["storage_options"] = storage_options
    if in_profile:
        dev["state"] = state
    else:
        config = root / "maintainer_project.yml"
        config.write_text(config.read_text() + f"state: {json.dumps(state)}\n")
    profiles = {"project": {"target": "dev", "outputs": {"dev": dev}}}
    (root / "profiles.yml").write_text(json.dumps(profiles))
    return StateProject(root)
