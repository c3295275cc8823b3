"""Corrupt tables are refused before anything changes (issue 12: item 4 and "corrupt tables are
changed before they are refused"), through the CLI on real generated tables.

Each test damages a table for real (an instant file cut or overwritten, a data file emptied or
cut, ``hoodie.properties`` cut), twice: after a plan was made on the intact table (apply must
re-check and refuse before its first write), and before planning (the plan blocks every node of
the table, naming the file). Both times every file of the table keeps its name and bytes (the
runner's lock folder aside) and ``hudi`` reads what it read before, when it can read the table.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi.file_groups.filenames import LogFileName
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.table.state import open_table

pytestmark = pytest.mark.spark

ProjectWriter = Callable[[Path, str], Path]
Corruption = Callable[[Path], str]
"""Damages the table; returns the damaged file's path relative to the table."""

ALL_SERVICES = (
    "rollback: {}\n"
    "compaction: {trigger: {max_delta_commits: 2}}\n"
    "clean: {commits_retained: 1}\n"
    "archive: {keep_min_commits: 2, keep_max_commits: 3}"
)
CLEAN_AND_ARCHIVE = "clean: {commits_retained: 1}\narchive: {keep_min_commits: 2, keep_max_commits: 3}"
"""Services whose planners read no file sizes: the table is listed names-only (sizes asked on demand)."""
RUNNER_DIRS = (".hoodie/.maintainer/", ".hoodie/.locks/")
"""The runner's own folders: its ledger, and the table lock (left released, as Hudi leaves it)."""


def table_files(table: Path) -> dict[str, str]:
    """Every file of the table (relative path -> sha256), the runner's own folders aside."""
    return {
        relative: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in table.rglob("*")
        if path.is_file() and not (relative := str(path.relative_to(table))).startswith(RUNNER_DIRS)
    }


def make_table(path: Path, table_type: str, version: int, failed_write: bool = False) -> Path:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=6, rows_per_commit=10, seed=12)
    generate(str(path), DatagenSpec("t", table_type, version, workload, failed_write=failed_write))
    return path


def plan_json(root: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((root / "target" / "plan" / "plan.json").read_text())
    return data


def nodes_of(root: Path) -> list[dict[str, object]]:
    (table,) = cast(list[dict[str, Any]], plan_json(root)["tables"])
    nodes: list[dict[str, object]] = table["nodes"]
    return nodes


def completed_commits(table: Path) -> list[Instant]:
    return open_table(str(table)).snapshot.timeline.completed_commits()


def assert_refused_before_any_change(
    project: ProjectWriter,
    table: Path,
    corrupt: Corruption,
    capsys: pytest.CaptureFixture[str],
    services: str = ALL_SERVICES,
) -> str:
    """The attack, twice (see the module docstring); returns the damaged file."""
    root = project(table, services)
    assert main(["plan", "--project-dir", str(root)]) == 0
    assert any(node["status"] == "changes" for node in nodes_of(root))
    damaged = corrupt(table)
    before = table_files(table)
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 1
    out = capsys.readouterr()
    assert table_files(table) == before
    assert damaged.rsplit("/", 1)[-1] in out.out + out.err

    assert main(["plan", "--project-dir", str(root)]) == 3
    nodes = nodes_of(root)
    assert {node["service"] for node in nodes} >= (
        {"clean", "archive"} if services == CLEAN_AND_ARCHIVE else {"rollback", "clean", "archive"}
    )
    for node in nodes:
        assert node["status"] == "blocked" and not node["actions"], node
        assert any(damaged in reason for reason in node["reasons"]), node["reasons"]  # type: ignore[attr-defined]
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 0
    assert table_files(table) == before
    return damaged


# -- the attacks -----------------------------------------------------------------------------------


def cut_in_half(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def cut_oldest_completed_deltacommit(table: Path) -> str:
    """What archive would move first, and what clean and compaction read."""
    loaded = open_table(str(table))
    oldest = loaded.snapshot.timeline.completed_commits()[0]
    relative = loaded.snapshot.timeline.file_path(oldest)
    cut_in_half(table / relative)
    return relative


@pytest.mark.parametrize("version", [6, 8])
def test_a_truncated_completed_deltacommit_blocks_the_table_and_archives_nothing(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    """v6: JSON commit metadata cut in half (rollback, compaction and 127 deletions used to run
    before archive failed); v8: an Avro commit cut in half (used to be moved into the archive)."""
    table = make_table(tmp_path / "t", "mor", version, failed_write=True)
    damaged = assert_refused_before_any_change(project, table, cut_oldest_completed_deltacommit, capsys)
    assert damaged.endswith(".deltacommit")


def garbage_latest_commit(table: Path) -> str:
    loaded = open_table(str(table))
    relative = loaded.snapshot.timeline.file_path(loaded.snapshot.timeline.completed_commits()[-1])
    path = table / relative
    path.write_bytes(hashlib.sha512(path.read_bytes()).digest() * 8)
    return relative


@pytest.mark.parametrize("version", [6, 8])
def test_a_garbage_latest_commit_blocks_the_table(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    table = make_table(tmp_path / "t", "cow", version)
    assert_refused_before_any_change(project, table, garbage_latest_commit, capsys)


def latest_base_file(table: Path) -> Path:
    loaded = open_table(str(table))
    latest = max((s.base_file for s in loaded.view.latest_slices() if s.base_file), key=lambda f: f.path)
    return table / latest.path


def empty_latest_base_file(table: Path) -> str:
    path = latest_base_file(table)
    path.write_bytes(b"")
    return str(path.relative_to(table))


@pytest.mark.parametrize("table_type", ["cow", "mor"])
def test_a_zero_byte_base_file_blocks_the_table(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str], table_type: str
) -> None:
    """The commit that wrote it recorded its size: the listing contradicts it (COW used to apply
    with exit 0; MOR failed with a raw PythonException and left an inflight compaction)."""
    table = make_table(tmp_path / "t", table_type, 8)
    assert_refused_before_any_change(project, table, empty_latest_base_file, capsys)


def zero_parquet_tail(table: Path) -> str:
    """Same size (so the write stats agree), but the footer is gone: only the compaction reads
    far enough to notice."""
    path = latest_base_file(table)
    data = path.read_bytes()
    path.write_bytes(data[:-8] + bytes(8))
    return str(path.relative_to(table))


def test_a_base_file_without_footer_blocks_the_compaction_s_table(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = make_table(tmp_path / "t", "mor", 6)
    assert_refused_before_any_change(project, table, zero_parquet_tail, capsys)
    reasons = " ".join(r for n in nodes_of(table.parent / "project") for r in n["reasons"])  # type: ignore[attr-defined]
    assert "does not end with the Parquet magic PAR1" in reasons


def cut_latest_log_file(table: Path) -> str:
    loaded = open_table(str(table))
    logs = [f for s in loaded.view.latest_slices() for f in s.log_files]
    latest = max(logs, key=lambda f: (LogFileName.parse(f.name).instant_time, f.path))  # type: ignore[union-attr]
    cut_in_half(table / latest.path)
    return latest.path


@pytest.mark.parametrize("version", [6, 8])
def test_a_committed_log_file_cut_in_half_is_neither_compacted_nor_cleaned(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    """Issue 12 item 4: the compaction used to skip "1 corrupt log block as Hudi does" and the
    clean then deleted the damaged file. The committed size is in the deltacommit's write stat:
    the message names the file, both sizes and what to do."""
    table = make_table(tmp_path / "t", "mor", version)
    damaged = assert_refused_before_any_change(project, table, cut_latest_log_file, capsys)
    root = table.parent / "project"
    reasons = " ".join(r for n in nodes_of(root) for r in n["reasons"])  # type: ignore[attr-defined]
    actual = (table / damaged).stat().st_size
    assert f"log file is {actual} bytes" in reasons and "committed it at" in reasons
    assert "roll back deltacommit" in reasons and "restore the file" in reasons


@pytest.mark.parametrize(("table_type", "damage"), [("cow", "empty base file"), ("mor", "cut log file")])
def test_a_damaged_committed_file_blocks_a_table_listed_names_only(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str], table_type: str, damage: str
) -> None:
    """Clean and archive read no listed sizes, so a local table is listed without a stat per file;
    the integrity check still asks for the sizes the commits recorded and finds the damage."""
    table = make_table(tmp_path / "t", table_type, 8)
    corrupt = empty_latest_base_file if damage == "empty base file" else cut_latest_log_file
    damaged = assert_refused_before_any_change(project, table, corrupt, capsys, CLEAN_AND_ARCHIVE)
    reasons = " ".join(r for n in nodes_of(table.parent / "project") for r in n["reasons"])  # type: ignore[attr-defined]
    assert damaged in reasons and "restore the file" in reasons


def cut_properties_before_partition_fields(table: Path) -> str:
    path = table / ".hoodie" / "hoodie.properties"
    text = path.read_text("latin-1")
    path.write_text(text[: text.index("hoodie.table.partition.fields")], "latin-1")
    return ".hoodie/hoodie.properties"


@pytest.mark.parametrize("version", [6, 8])
def test_a_truncated_hoodie_properties_is_not_read_as_a_flat_table(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    """Checksum and partition fields cut: it used to be read as non-partitioned and changed."""
    table = make_table(tmp_path / "t", "cow", version)
    root = project(table, ALL_SERVICES)
    assert main(["plan", "--project-dir", str(root)]) == 0
    cut_properties_before_partition_fields(table)
    before = table_files(table)
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1
    assert table_files(table) == before
    assert main(["plan", "--project-dir", str(root)]) == 3
    for node in nodes_of(root):
        assert node["status"] == "blocked"
        assert any("hoodie.table.checksum is missing" in r for r in node["reasons"])  # type: ignore[attr-defined]
    assert main(["apply", "--project-dir", str(root)]) == 0
    assert table_files(table) == before


def test_a_corrupt_hoodie_properties_with_a_valid_backup_is_planned_on_it_and_recovered_by_apply(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hudi reads ``hoodie.properties.backup`` when the file is bad (an update cut short), and its
    next writer recovers the file from it: plan reads it too (writing nothing) and says so;
    apply, under the table lock, recovers the file as Hudi does, then maintains the table."""
    table = make_table(tmp_path / "t", "mor", 8)
    properties = table / ".hoodie" / "hoodie.properties"
    backup = table / ".hoodie" / "hoodie.properties.backup"
    good = properties.read_bytes()
    backup.write_bytes(good)
    root = project(table, ALL_SERVICES)
    cut_properties_before_partition_fields(table)
    before = table_files(table)
    capsys.readouterr()
    assert main(["plan", "--project-dir", str(root)]) == 0
    out = capsys.readouterr()
    assert "hoodie.table.checksum is missing" in out.err + out.out
    assert "the next apply recovers hoodie.properties" in out.err + out.out
    assert all(node["status"] != "blocked" for node in nodes_of(root))
    assert table_files(table) == before  # plan writes nothing
    assert main(["apply", "--project-dir", str(root)]) == 0
    out = capsys.readouterr()
    assert "recovered .hoodie/hoodie.properties from .hoodie/hoodie.properties.backup" in out.err + out.out
    assert properties.read_bytes() == good and not backup.exists()


def overwrite_first_block_magic(table: Path) -> str:
    """Same size (the write stats agree): only reading the file shows the damage."""
    loaded = open_table(str(table))
    logs = [f for s in loaded.view.latest_slices() for f in s.log_files]
    latest = max(logs, key=lambda f: (LogFileName.parse(f.name).instant_time, f.path))  # type: ignore[union-attr]
    path = table / latest.path
    data = path.read_bytes()
    path.write_bytes(b"XXXXXX" + data[6:])
    return latest.path


@pytest.mark.parametrize("version", [6, 8])
def test_a_corrupt_block_inside_the_committed_length_is_not_compacted_past(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str], version: int
) -> None:
    """Beyond Hudi: a corrupt block that starts inside the length the deltacommit committed is
    damage, not a crashed append. Planning does not read logs; apply reads those of the approved
    slices before its first write, refuses the compaction naming the file and what to do, and the
    clean keeps the file (its slice was not compacted): nothing in the table changes."""
    table = make_table(tmp_path / "t", "mor", version)
    root = project(table, "compaction: {trigger: {max_delta_commits: 2}}\nclean: {commits_retained: 1}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    assert {n["service"]: n["status"] for n in nodes_of(root)}["compaction"] == "changes"
    damaged = overwrite_first_block_magic(table)
    before = table_files(table)
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1
    out = capsys.readouterr()
    text = " ".join((out.out + out.err).split())
    assert table_files(table) == before
    assert damaged.rsplit("/", 1)[-1] in text and "corrupt log block at byte 0" in text
    assert "damage, not a crashed append" in text and "roll back deltacommit" in text
