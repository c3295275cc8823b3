"""Helpers of the end-to-end tests on tables with a metadata table: a project around one
table (written with the e2e ``project`` fixture), the manifest of one service, the checks a
maintained table must pass, and the states tests put a table in."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.metadata.check import check_metadata_table
from maintainer.hudi.metadata.latest_records import read_latest_records
from maintainer.hudi.metadata.secondary_index import split_key
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.table.state import open_table
from tests.support import artifacts, oracle
from tests.support.metadata_edit import append_records, base_records

MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
TRIPS_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
MOR_WITH_LOGS = [TRIPS_V8, "sample_table_mor_avro_v9_timebasedkeygen_nonhivestyle"]
"""Merge-on-read fixtures with a metadata table whose latest slices have log files to compact."""
FILE_NAME = ["_hoodie_file_name"]
"""The column a compaction changes (the rows' file); compared without it."""
SETTINGS = {
    "rollback": "rollback: {min_age: 0s}",
    "compaction": "compaction: {trigger: {max_delta_commits: 1}}",
    "clean": "clean: {commits_retained: 1}",
    "archive": "archive: {keep_min_commits: 1, keep_max_commits: 2}",
}


def only(service: str) -> str:
    """The manifest's service blocks: ``service`` with test settings, the others off."""
    others = (f"{s}: {{enabled: false}}" for s in SETTINGS if s != service)
    return "\n".join([*others, SETTINGS.get(service, "")])


@dataclass(frozen=True)
class Project:
    root: Path
    table: Path

    def cli(self, *args: str) -> int:
        command, *rest = args
        return main([command, *rest, "--project-dir", str(self.root)])

    def nodes(self) -> dict[str, dict[str, Any]]:
        plan = artifacts.plan_json(self.root / "target" / "plan")
        return {f"{n['table']}.{n['service']}": n for t in plan["tables"] for n in t["nodes"]}

    def results(self) -> dict[str, dict[str, Any]]:
        data = artifacts.run_results(self.root / "target")
        return {n["node"]: n for n in data["results"]}


def assert_metadata_in_step(path: Path) -> None:
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    check = check_metadata_table(table, mdt)
    assert check.problems() == []


def without_metadata_table(source: Path, into: Path) -> Path:
    """A copy of the table with its metadata table removed (readers then list storage)."""
    copy = into / "no_mdt" / source.name
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(source, copy)
    shutil.rmtree(copy / ".hoodie" / "metadata")
    properties = copy / ".hoodie" / "hoodie.properties"
    lines = properties.read_text(encoding="latin-1").splitlines()
    kept = [line for line in lines if not line.startswith("hoodie.table.metadata.partitions")]
    properties.write_text("\n".join(kept) + "\n", encoding="latin-1")
    return copy


def fail_last_deltacommit(path: Path) -> str:
    """Turn the table's last completed deltacommit into a failed write: its completed file goes
    (its metadata deltacommit stays completed, as when a writer dies between the two). Secondary
    indexes built after it (the fixtures' were: their ``indexing`` instants come last) index its
    records; an index built after a failed write does not, so their entries are deleted (see
    :func:`unindex_records`)."""
    before = _latest_keys(path)
    completed = sorted((path / ".hoodie" / "timeline").glob("2*_*.deltacommit"))[-1]
    completed.unlink()
    unindex_records(path, before - _latest_keys(path))
    return completed.name.split("_")[0]


def _latest_keys(path: Path) -> set[str]:
    latest = read_latest_records(open_table(str(path), verify=False))
    return set() if latest is None else set(latest.locations)


def unindex_records(path: Path, record_keys: Collection[str]) -> None:
    """Mark the secondary index entries of ``record_keys`` deleted, in the file group whose base
    file holds each (a block appended to that slice's log file, at its base file's instant)."""
    metadata = path / ".hoodie" / "metadata"
    for folder in sorted(metadata.glob("secondary_index_*")):
        for file_id in sorted({base.name.split("_")[0] for base in folder.glob("*.hfile")}):
            gone = [
                (key, {**record, "SecondaryIndexMetadata": {"isDeleted": True}})
                for key, record in base_records(folder, file_id)
                if (split_key(key) or (None, None))[1] in record_keys
            ]
            if gone:
                append_records(folder, file_id, gone)


def retained_reads(path: Path, since: str, drop: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The rows hudi reads as of each completed commit from ``since`` on."""
    commits = [t for t in oracle.completed_commit_times(path) if t >= since]
    return {t: oracle.snapshot_rows(path, as_of=t, drop=drop or ()) for t in commits}


def planned_synced_node(project: Project, service: str) -> dict[str, Any]:
    """Plan; the node of ``service`` has changes and writes into the metadata table last."""
    assert project.cli("plan") == 0
    node = project.nodes()[f"t.{service}"]
    assert node["status"] == "changes", node["reasons"]
    assert node["actions"][-1]["kind"] == "sync_metadata_table", node["actions"][-1]
    return node


def applied_in_step(project: Project, scratch: Path) -> dict[str, dict[str, Any]]:
    """Apply; the metadata table is in step and hudi's file slices through it are those of a
    copy without it. Returns the run results by node."""
    assert project.cli("apply") == 0, project.results()
    assert_metadata_in_step(project.table)
    assert oracle.file_slices(project.table) == oracle.file_slices(
        without_metadata_table(project.table, scratch)
    )
    return project.results()


def local_cow_project(
    write: Callable[[Path, str], Path], tmp_path: Path, services: str, *, commits: int, seed: int
) -> Project:
    """A generated copy-on-write v8 table (2 partitions, one file group each) maintained by a
    fresh project (the e2e ``project`` fixture's ``write``) with ``engine: local``: no JVM."""
    table = tmp_path / "lake" / "t"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=commits, rows_per_commit=10, seed=seed)
    generate(str(table), DatagenSpec("t", "cow", 8, workload))
    maintained = Project(write(table, services), table)
    profiles = maintained.root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    return maintained


def in_process(root: Path, table: Path) -> Project:
    """The project at ``root`` (maintaining ``table``) switched to ``engine: local``: its apply
    runs every node in this process, no JVM."""
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    return Project(root, table)
