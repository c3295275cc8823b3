"""Attacks on the rollback through the CLI (issue 12): an edited ``plan.json`` (its plan id and
payload hash recomputed, so the plan is accepted) asks the rollback to delete more than the failed
write's files. Apply re-derives the rollback from the table and deletes only the intersection:
everything else is drift, nothing outside the failed write is deleted, ``hudi`` reads the same."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from maintainer.artifact.canonical import PLAN_ID_FIELD, compute_plan_id, pretty_json
from maintainer.artifact.directory import PAYLOAD_DIR, PAYLOAD_HASHES_FIELD, sha256_hex
from maintainer.artifact.model import RollbackAction
from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.hudi import payloads
from maintainer.hudi.file_groups.filenames import BaseFileName
from maintainer.services.rollback.node import rollback_plan_of
from tests.support import oracle

pytestmark = pytest.mark.spark

META = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name"]  # fmt: skip


def base_files(path: Path) -> dict[str, Path]:
    """Table-relative path -> file, for every base file below ``path``."""
    return {
        str(p.relative_to(path)): p
        for p in path.rglob("*.parquet")
        if ".hoodie" not in p.parts and BaseFileName.parse(p.name) is not None
    }


def instant_of(path: str) -> str:
    parsed = BaseFileName.parse(path.rsplit("/", 1)[-1])
    assert parsed is not None
    return parsed.instant_time


def tamper(plan_dir: Path, extra_deletes: list[str]) -> None:
    """Add ``extra_deletes`` to the rollback's first request, then recompute the rollback payload,
    its hash and the plan id exactly as maintainer/artifact/directory.py does."""
    plan_file = plan_dir / "plan.json"
    data = json.loads(plan_file.read_text())
    (node,) = [n for t in data["tables"] for n in t["nodes"] if n["service"] == "rollback"]
    (action,) = node["actions"]
    request = action["requests"][0]
    request["files_to_be_deleted"] = request["files_to_be_deleted"] + extra_deletes
    action["delete_files"] = sorted(action["delete_files"] + extra_deletes)
    name = action["payload"]
    approved = TypeAdapter(RollbackAction).validate_python(action)
    payload = payloads.encode_avro(rollback_plan_of(approved))
    (plan_dir / PAYLOAD_DIR / name).write_bytes(payload)
    data[PAYLOAD_HASHES_FIELD][name] = sha256_hex(payload)
    body = {k: v for k, v in data.items() if k not in (PLAN_ID_FIELD, PAYLOAD_HASHES_FIELD)}
    data[PLAN_ID_FIELD] = compute_plan_id(body)
    plan_file.write_text(pretty_json(data), encoding="utf-8")
    meta = plan_dir / "plan_meta.json"
    meta.write_text(pretty_json({**json.loads(meta.read_text()), PLAN_ID_FIELD: data[PLAN_ID_FIELD]}))


def test_an_edited_plan_makes_the_rollback_delete_only_the_failed_writes_files(
    project: Callable[[Path, str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The edited rollback asks to delete (a) a live base file of a completed commit, (b)
    ``<table>/../victim/<hudi name>`` outside the table and (c) another table's file (a copy of
    this one, so taking it "by partition and file name" would hit this table's live file). The
    edited plan's id and payload hash are recomputed; apply validates the whole plan before its
    first node and refuses it, naming the three, and deletes nothing (the rollback executor's own
    intersection with the table, the defence behind it, is tested in test_rollback_approval.py)."""
    table, other = tmp_path / "t", tmp_path / "other"
    workload = WorkloadSpec(partitions=2, file_groups=1, commits=5, rows_per_commit=10, seed=3)
    generated = generate(str(table), DatagenSpec("t", "cow", 6, workload, failed_write=True))
    failed = generated.failed_instant
    assert failed is not None
    shutil.copytree(table, other)
    files = base_files(table)
    failed_files = sorted(p for p in files if instant_of(p) == failed)
    live = sorted(p for p in files if instant_of(p) != failed)
    assert failed_files and len(live) >= 2
    victim = tmp_path / "victim" / failed_files[0].rsplit("/", 1)[-1]
    victim.parent.mkdir()
    victim.write_bytes(b"not this table's")
    other_files = base_files(other)
    rows = oracle.snapshot_rows(table, drop=META)
    root = project(table, "rollback: {min_age: 0s}\nclean: {enabled: false}\narchive: {enabled: false}")

    assert main(["plan", "--project-dir", str(root)]) == 0
    plan_dir = root / "target" / "plan"
    attacks = [str(table / live[0]), f"{table}/../victim/{victim.name}", str(other / live[1])]
    tamper(plan_dir, attacks)
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 1

    err = capsys.readouterr().err
    assert "refused before any node runs" in err
    assert "not a file of the rolled-back instant" in err and "outside the table" in err
    assert victim.exists()
    assert base_files(other).keys() == other_files.keys()
    assert sorted(base_files(table)) == sorted(files)
    assert oracle.snapshot_rows(table, drop=META) == rows
