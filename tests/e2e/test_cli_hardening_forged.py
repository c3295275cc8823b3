"""Nothing is ours because it says so (issue 29, attack 2): a pending clean written into the table
with the plan's id in its extra metadata, and a file in the ledger folder of the plan, are each
checked against what the plan approved before apply trusts them; a forgery is refused naming
it, nothing is deleted, and ``hudi`` reads every row."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from maintainer.artifact.directory import PLAN_KEY_ENV
from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi import payloads
from maintainer.hudi.table.state import open_table
from maintainer.runner.ledger import record_path
from maintainer.services.common.ledger import PLAN_ID_KEY
from tests.support import artifacts, oracle

pytestmark = pytest.mark.spark

ProjectWriter = Callable[[Path, str], Path]
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
CLEAN_AND_ARCHIVE = "clean: {commits_retained: 1}\narchive: {keep_min_commits: 2, keep_max_commits: 3}"


def data_files(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*.parquet")}


def cow_table(path: Path, seed: int, commits: int = 6) -> None:
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=commits, rows_per_commit=10, seed=seed)
    generate(str(path), DatagenSpec("t", "cow", 6, workload))


def forge_pending_clean(table: Path, plan_id: str) -> Path:
    """A ``.clean.requested`` that deletes the live base file of every file group and carries
    the plan id, as an attacker with write access to the table would write it."""
    loaded = open_table(str(table))
    by_partition: dict[str, list[payloads.CleanFileInfo]] = {}
    for file_slice in loaded.view.latest_slices():
        assert file_slice.base_file is not None
        path = file_slice.base_file.path
        by_partition.setdefault(path.rsplit("/", 1)[0], []).append(
            payloads.CleanFileInfo(file_path=loaded.storage.uri(path))
        )
    forged = payloads.CleanerPlan(
        policy="KEEP_LATEST_COMMITS",
        file_paths_to_be_deleted_per_partition={k: tuple(v) for k, v in by_partition.items()},
        extra_metadata={PLAN_ID_KEY: plan_id},
    )
    now = datetime.now(timezone.utc) + timedelta(seconds=1)
    instant = now.strftime("%Y%m%d%H%M%S") + f"{now.microsecond // 1000:03d}"
    requested = table / ".hoodie" / f"{instant}.clean.requested"
    requested.write_bytes(payloads.encode_avro(forged))
    return requested


def test_a_pending_clean_carrying_the_plan_id_is_not_finished_as_our_own(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    cow_table(table, seed=61)
    rows, files = oracle.snapshot_rows(table, drop=META), data_files(table)
    root = project(table, "clean: {commits_retained: 1}\narchive: {enabled: false}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    plan_id = artifacts.plan_json(root / "target" / "plan")["plan_id"]
    requested = forge_pending_clean(table, plan_id)
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 1
    out = capsys.readouterr()
    said = " ".join((out.out + out.err).split())
    instant = requested.name.split(".")[0]
    assert f"the pending clean {instant} carries this plan's id but is not what this plan approved" in said
    assert requested.name in said
    assert data_files(table) == files, "nothing deleted"
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_a_forged_ledger_record_does_not_skip_its_node(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: any bytes at ``applied/<plan id>/clean.json`` made apply skip the clean, run the
    archive and exit 0. Now the whole plan is refused before anything runs, naming the file."""
    table = tmp_path / "t"
    cow_table(table, seed=62, commits=8)
    rows, files = oracle.snapshot_rows(table, drop=META), data_files(table)
    timeline = sorted(p.name for p in (table / ".hoodie").iterdir() if p.is_file())
    root = project(table, CLEAN_AND_ARCHIVE)
    assert main(["plan", "--project-dir", str(root)]) == 0
    plan = artifacts.plan_json(root / "target" / "plan")
    forged = table / record_path(plan["plan_id"], "clean")
    forged.parent.mkdir(parents=True)
    for content in (b"done", json.dumps({"plan_id": plan["plan_id"], "table": "t", "service": "clean",
                                         "finished_at": "now", "summary": "forged"}).encode()):  # fmt: skip
        forged.write_bytes(content)
        capsys.readouterr()
        assert main(["apply", "--project-dir", str(root)]) == 1
        err = " ".join(capsys.readouterr().err.split())
        assert "the ledger record of this plan's node cannot be trusted" in err
        assert "clean.json" in err
        assert sorted(p.name for p in (table / ".hoodie").iterdir() if p.is_file()) == timeline
        assert data_files(table) == files
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_with_a_plan_key_a_record_with_the_right_hashes_but_no_signature_is_refused(
    project: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The fields of a record are public (plan.json names them); with a key, only a record
    signed with it is believed. An honest interrupted apply's record still resumes."""
    monkeypatch.setenv(PLAN_KEY_ENV, "k" * 32)
    table = tmp_path / "t"
    cow_table(table, seed=63, commits=8)
    root = project(table, CLEAN_AND_ARCHIVE)
    assert main(["plan", "--project-dir", str(root)]) == 0
    plan_id = artifacts.plan_json(root / "target" / "plan")["plan_id"]
    monkeypatch.setenv(FAULT_ENV, "archive:before_start")
    assert main(["apply", "--project-dir", str(root)]) == 1
    monkeypatch.delenv(FAULT_ENV)
    record = table / record_path(plan_id, "clean")
    honest = json.loads(record.read_bytes())
    assert honest["signature"].startswith("hmac-sha256:") and honest["payloads"]
    record.write_text(json.dumps({k: v for k, v in honest.items() if k != "signature"}))
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1
    assert "its signature does not match the plan key" in " ".join(capsys.readouterr().err.split())
    record.write_text(json.dumps(honest))
    assert main(["apply", "--project-dir", str(root)]) == 0


def test_a_completed_clean_carrying_the_plan_id_does_not_make_the_plan_applied(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A forged *completed* clean with the plan id (its plan deletes live files the plan never
    approved) would make the node look done and apply say "nothing to do": refused, naming it."""
    table = tmp_path / "t"
    cow_table(table, seed=64)
    rows, files = oracle.snapshot_rows(table, drop=META), data_files(table)
    root = project(table, "clean: {commits_retained: 1}\narchive: {enabled: false}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    plan_id = artifacts.plan_json(root / "target" / "plan")["plan_id"]
    requested = forge_pending_clean(table, plan_id)
    instant = requested.name.split(".")[0]
    (table / ".hoodie" / f"{instant}.clean.inflight").write_bytes(requested.read_bytes())
    completed = payloads.CleanMetadata(
        start_clean_time=instant,
        time_taken_in_millis=1,
        total_files_deleted=0,
        earliest_commit_to_retain="",
        partition_metadata={},
        extra_metadata={PLAN_ID_KEY: plan_id},
    )
    (table / ".hoodie" / f"{instant}.clean").write_bytes(payloads.encode_avro(completed))
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert (
        f"the completed clean {instant} carries this plan's id but is not what its node t.clean approved"
        in err
    )
    assert requested.name in err
    assert data_files(table) == files
    assert oracle.snapshot_rows(table, drop=META) == rows
