"""The plan directory: deterministic bytes, verified hash and payloads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from maintainer.errors import PlanError
from maintainer.plan.artifact import PLAN_FILE, plan_id_of, read_plan, sha256_hex, write_plan
from maintainer.plan.model import NodePlan, NodeStatus, Plan, PlannedAction, TableFingerprint, TablePlan

PAYLOAD = b"Obj\x01payload"


def sample_plan() -> Plan:
    node = NodePlan(
        table="trips",
        service="clean",
        status=NodeStatus.CHANGES,
        reasons=("3 superseded file slices",),
        actions=(PlannedAction("delete_file", "p/a.parquet", "older than ECTR", {"size": 10}),),
        effect={"delete_files": [{"path": "p/a.parquet", "size": 10}], "bytes": 10},
        payloads=("trips.clean.requested",),
    )
    fingerprint = TableFingerprint(("1.commit.COMPLETED",), (), "abc")
    return Plan("demo", "dev", (TablePlan("trips", "/t", "COPY_ON_WRITE", 6, fingerprint, (node,)),))


def write(directory: Path, plan: Plan | None = None) -> str:
    return write_plan(
        directory,
        plan or sample_plan(),
        {"trips.clean.requested": PAYLOAD},
        "# plan\n",
        {"created_at": "now"},
    )


def test_plan_round_trips_through_its_directory(tmp_path: Path) -> None:
    plan_id = write(tmp_path)
    saved = read_plan(tmp_path)
    assert saved.plan == sample_plan()
    assert saved.plan_id == plan_id
    assert saved.payloads == {"trips.clean.requested": PAYLOAD}


def test_same_plan_gives_byte_identical_files(tmp_path: Path) -> None:
    write(tmp_path / "a")
    write(tmp_path / "b")
    for name in (PLAN_FILE, "plan.md", "payloads/trips.clean.requested"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_tampered_plan_json_is_refused(tmp_path: Path) -> None:
    write(tmp_path)
    data = json.loads((tmp_path / PLAN_FILE).read_text())
    data["tables"][0]["nodes"][0]["effect"]["bytes"] = 11
    (tmp_path / PLAN_FILE).write_text(json.dumps(data))
    with pytest.raises(PlanError, match="changed after planning"):
        read_plan(tmp_path)


def test_tampered_payload_is_refused(tmp_path: Path) -> None:
    write(tmp_path)
    (tmp_path / "payloads" / "trips.clean.requested").write_bytes(b"other")
    with pytest.raises(PlanError, match=r"payload trips\.clean\.requested"):
        read_plan(tmp_path)


def test_unknown_format_version_is_refused(tmp_path: Path) -> None:
    write(tmp_path)
    data = json.loads((tmp_path / PLAN_FILE).read_text())
    data["format_version"] = 99
    (tmp_path / PLAN_FILE).write_text(json.dumps(data))
    with pytest.raises(PlanError, match="format version 99"):
        read_plan(tmp_path)


def test_missing_plan_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="no plan found") as info:
        read_plan(tmp_path)
    assert "maintainer plan" in str(info.value)


def test_garbage_plan_is_a_plan_error(tmp_path: Path) -> None:
    (tmp_path / PLAN_FILE).write_text("{not json")
    with pytest.raises(PlanError, match="not valid JSON"):
        read_plan(tmp_path)


def test_payload_hashes_are_outside_the_plan_id(tmp_path: Path) -> None:
    plan = sample_plan()
    expected_id = plan_id_of(plan)
    assert write(tmp_path, plan) == expected_id
    data = json.loads((tmp_path / PLAN_FILE).read_text())
    assert data["payloads"] == {"trips.clean.requested": sha256_hex(PAYLOAD)}
    assert data["tables"][0]["nodes"][0]["payloads"] == ["trips.clean.requested"]


def test_payload_with_a_rewritten_hash_is_still_refused_if_the_hash_map_lies(tmp_path: Path) -> None:
    write(tmp_path)
    data = json.loads((tmp_path / PLAN_FILE).read_text())
    data["payloads"] = {}
    (tmp_path / PLAN_FILE).write_text(json.dumps(data))
    with pytest.raises(PlanError, match="missing or was changed"):
        read_plan(tmp_path)


def test_write_refuses_payloads_the_nodes_do_not_name(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="do not match"):
        write_plan(tmp_path, sample_plan(), {"other": b"x"}, "", {})
