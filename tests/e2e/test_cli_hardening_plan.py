"""The plan as a request, through the CLI (issue 12): signed plans, the whole plan validated
before its first node, a ledger record for every node (resume runs exactly what is left, a
fully applied plan is refused), and the table lock (a dead owner's lock is taken over, a live
one refused before Spark starts). Each test performs the attack on generated tables and checks
files on disk, rows through ``hudi``, exit codes and messages."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.canonical import compute_plan_id
from maintainer.artifact.directory import PLAN_KEY_ENV, SIGNATURE_FIELD
from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.lock import StorageLockData
from maintainer.runner.ledger import record_path
from maintainer.runner.lock import LOCK_PATH, Owner, TableLock, process_scope, read_lock
from maintainer.spark.session import create_session
from maintainer.storage import Storage
from tests.support import artifacts, oracle

pytestmark = pytest.mark.spark

ProjectWriter = Callable[[Path, str], Path]
Capture = pytest.CaptureFixture[str]
META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip
CLEAN_AND_ARCHIVE = "clean: {commits_retained: 1}\narchive: {keep_min_commits: 2, keep_max_commits: 3}"
CLEAN_ONLY = "clean: {commits_retained: 1}\narchive: {enabled: false}"


def files_below(path: Path) -> set[str]:
    """The table's files, without maintainer's own sidecars (lock, ledger records)."""
    return {
        str(p.relative_to(path))
        for p in path.rglob("*")
        if p.is_file() and ".maintainer" not in p.relative_to(path).parts
    }


def cow_table(path: Path, seed: int, commits: int = 6, failed_write: bool = False) -> None:
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=commits, rows_per_commit=10, seed=seed)
    generate(str(path), DatagenSpec("t", "cow", 6, workload, failed_write=failed_write))


def plan_json(root: Path) -> dict[str, Any]:
    return artifacts.plan_json(root / "target" / "plan")


def rewrite_plan(root: Path, data: dict[str, Any]) -> None:
    """Save an edited plan.json as an attacker would: the plan id recomputed over the new body,
    payload hashes and signature left as they were."""
    body = {k: v for k, v in data.items() if k not in ("plan_id", "payloads", SIGNATURE_FIELD)}
    data["plan_id"] = compute_plan_id(body)
    (root / "target" / "plan" / "plan.json").write_text(json.dumps(data, indent=2))


def node_of(data: dict[str, Any], table: str, service: str) -> dict[str, Any]:
    (node,) = [n for t in data["tables"] if t["name"] == table for n in t["nodes"] if n["service"] == service]
    found: dict[str, Any] = node
    return found


def changing_services(data: dict[str, Any]) -> list[str]:
    return [
        f"{n['table']}.{n['service']}" for t in data["tables"] for n in t["nodes"] if n["status"] == "changes"
    ]


# -- 1. signatures ------------------------------------------------------------------------------


def test_with_a_plan_key_an_edited_or_unsigned_plan_is_refused_and_a_signed_one_applies(
    project: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = tmp_path / "t"
    cow_table(table, seed=11)
    root = project(table, CLEAN_ONLY)
    before, rows = files_below(table), oracle.snapshot_rows(table, drop=META)

    assert main(["plan", "--project-dir", str(root)]) == 0  # no key: unsigned
    monkeypatch.setenv(PLAN_KEY_ENV, "the-team-key")
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1
    assert "the plan is not signed, and MAINTAINER_PLAN_KEY is set" in capsys.readouterr().err

    assert main(["plan", "--project-dir", str(root)]) == 0  # signed
    meta = (root / "target" / "plan" / "plan_meta.json").read_text()
    assert '"signed": true' in meta and "the-team-key" not in meta
    data = plan_json(root)
    assert data[SIGNATURE_FIELD].startswith("hmac-sha256:")
    node_of(data, "t", "clean")["reasons"].append("reviewed and approved by the on-call")
    rewrite_plan(root, data)
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1
    assert "the plan's signature does not match" in capsys.readouterr().err
    assert files_below(table) == before

    assert main(["plan", "--project-dir", str(root)]) == 0
    monkeypatch.delenv(PLAN_KEY_ENV)
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1  # signed, key not set: refused
    assert "the plan is signed, but no key is configured" in capsys.readouterr().err
    assert files_below(table) == before
    assert main(["apply", "--project-dir", str(root), "--allow-unverified"]) == 0
    out, err = capsys.readouterr()
    assert "signature not verified" in err and "The plan was applied unverified" in out
    assert {f for f in before if f.endswith(".parquet")} - files_below(table)  # the clean ran
    assert oracle.snapshot_rows(table, drop=META) == rows


# -- 2. the whole plan before the first node ------------------------------------------------------


def two_table_project(root: Path, a: Path, b: Path) -> None:
    entries = "".join(
        f"  - name: {name}\n    path: {path}\n    clean: {{commits_retained: 1}}\n"
        "    archive: {enabled: false}\n"
        for name, path in (("a", a), ("b", b))
    )
    (root / "tables" / "example.yml").write_text(f"version: 1\ntables:\n{entries}")


def test_an_edited_later_node_is_refused_before_any_table_changes(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Table b's clean is edited to delete a live base file of table a through ``..`` (the plan id
    recomputed, the payload untouched): apply refuses the plan before any node runs; a's own,
    unedited clean does not run either, and neither table loses a file or a row."""
    a, b = tmp_path / "a", tmp_path / "b"
    cow_table(a, seed=21)
    cow_table(b, seed=22)
    root = project(a, CLEAN_ONLY)
    two_table_project(root, a, b)
    assert main(["plan", "--project-dir", str(root)]) == 0
    data = plan_json(root)
    assert changing_services(data) == ["a.clean", "b.clean"]
    live = sorted(p for p in a.rglob("*.parquet"))[-1].relative_to(a)
    edited = f"../a/{live}"
    node_of(data, "b", "clean")["actions"].append(
        {
            "kind": "delete_file",
            "target": edited,
            "reason": "older than retained",
            "size": 1,
            "partition": str(live.parent),
        }
    )
    rewrite_plan(root, data)
    files = {a: files_below(a), b: files_below(b)}
    rows = {t: oracle.snapshot_rows(t, drop=META) for t in (a, b)}
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 1
    err = capsys.readouterr().err
    assert "refused before any node runs, no table was touched" in err
    assert f"node b.clean, action delete_file {edited}: {edited!r}: outside the table" in err
    assert not (root / "target" / "run_results.json").exists()
    for table in (a, b):
        assert files_below(table) == files[table]
        assert oracle.snapshot_rows(table, drop=META) == rows[table]


# -- 3. a ledger record for every node --------------------------------------------------------------


def test_a_crash_between_clean_and_archive_resumes_the_archive_then_the_plan_is_applied(
    project: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = tmp_path / "t"
    cow_table(table, seed=31, commits=8)
    rows = oracle.snapshot_rows(table, drop=META)
    root = project(table, CLEAN_AND_ARCHIVE)
    assert main(["plan", "--project-dir", str(root)]) == 0
    data = plan_json(root)
    assert changing_services(data) == ["t.clean", "t.archive"]
    approved = [a["target"] for a in node_of(data, "t", "archive")["actions"]]
    plan_id = data["plan_id"]

    monkeypatch.setenv(FAULT_ENV, "archive:after_archive_written")
    assert main(["apply", "--project-dir", str(root)]) == 1
    monkeypatch.delenv(FAULT_ENV)
    assert (table / record_path(plan_id, "clean")).is_file()
    assert not (table / record_path(plan_id, "archive")).exists()
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert "resuming plan" in out and "t.clean" in out
    assert f"{len(approved)} instant(s) archived" in out
    active = {p.name.split(".")[0] for p in (table / ".hoodie").iterdir() if p.is_file()}
    assert not active & set(approved)
    assert (table / record_path(plan_id, "archive")).is_file()

    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 0, "a plan applied already: nothing to do"
    assert (
        f"plan {plan_id[:12]} was already applied: every node with changes is done" in capsys.readouterr().out
    )
    assert oracle.snapshot_rows(table, drop=META) == rows


def test_a_crash_after_the_archive_but_before_its_record_is_recorded_by_the_rerun(
    project: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = tmp_path / "t"
    cow_table(table, seed=32, commits=8)
    root = project(table, "clean: {enabled: false}\narchive: {keep_min_commits: 2, keep_max_commits: 3}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    data = plan_json(root)
    assert changing_services(data) == ["t.archive"]
    approved = len(node_of(data, "t", "archive")["actions"])
    monkeypatch.setenv(FAULT_ENV, "archive:before_record")
    assert main(["apply", "--project-dir", str(root)]) == 1
    monkeypatch.delenv(FAULT_ENV)
    archive_files = files_below(table / ".hoodie" / "archived")
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"nothing to do; {approved} already archived before this run" in out
    assert files_below(table / ".hoodie" / "archived") == archive_files  # no record written twice
    assert (table / record_path(data["plan_id"], "archive")).is_file()
    assert main(["apply", "--project-dir", str(root)]) == 0  # applied: nothing to do


def test_a_rollback_only_plan_applied_twice_is_refused_the_second_time(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    cow_table(table, seed=41, failed_write=True)
    rows = oracle.snapshot_rows(table, drop=META)
    root = project(table, "rollback: {min_age: 0s}\nclean: {enabled: false}\narchive: {enabled: false}")
    assert main(["plan", "--project-dir", str(root)]) == 0
    data = plan_json(root)
    assert changing_services(data) == ["t.rollback"]
    assert main(["apply", "--project-dir", str(root)]) == 0
    after_first = files_below(table)
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 0
    assert "was already applied" in capsys.readouterr().out
    assert files_below(table) == after_first
    assert oracle.snapshot_rows(table, drop=META) == rows


# -- 4. the lock ------------------------------------------------------------------------------------


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_fresh_lock_of_a_killed_apply_on_this_host_is_taken_over(
    project: ProjectWriter, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t"
    cow_table(table, seed=51)
    root = project(table, CLEAN_ONLY)
    assert main(["plan", "--project-dir", str(root)]) == 0
    pid = dead_pid()
    now_ms = time.time_ns() // 1_000_000  # valid for 5 more minutes by Hudi's rule
    owner = Owner(socket.gethostname(), pid, "0123456789ab" * 5, "killed", process_scope()).encode()
    Storage(str(table)).write_if_absent(LOCK_PATH, StorageLockData(False, now_ms + 300_000, owner).encode())
    capsys.readouterr()

    assert main(["apply", "--project-dir", str(root)]) == 0
    err = capsys.readouterr().err
    assert (
        f"taking over the lock of maintainer on {socket.gethostname()} pid {pid} (plan 0123456789ab)" in err
    )
    released = read_lock(Storage(str(table)))
    assert released is not None and released.data.expired


def test_a_live_lock_fails_the_apply_before_spark_starts(
    project: ProjectWriter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from maintainer.commands import apply_cmd

    table = tmp_path / "t"
    cow_table(table, seed=52)
    root = project(table, CLEAN_ONLY)
    assert main(["plan", "--project-dir", str(root)]) == 0
    sessions: list[object] = []
    real = create_session

    def recording(settings: object, log_path: object = None) -> object:
        sessions.append(settings)
        return real(settings, log_path)  # type: ignore[arg-type]

    monkeypatch.setattr(apply_cmd, "create_session", recording)
    before = files_below(table)
    capsys.readouterr()

    with TableLock(Storage(str(table)), "feedfacecafe" * 5):
        assert main(["apply", "--project-dir", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"the table is locked by another apply or writer: maintainer on {socket.gethostname()} pid" in err
    assert "(plan feedfacecafe)" in err
    assert sessions == []  # refused before any Spark session and any node
    lock_files = {
        f for f in files_below(table) if f.startswith(".hoodie/.locks/")
    }  # the lock's own, released
    assert files_below(table) - lock_files == before
