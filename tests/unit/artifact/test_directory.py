"""The plan directory: deterministic bytes, verified hash and payloads."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact import directory as artifact
from maintainer.artifact.canonical import PLAN_ID_FIELD, compute_plan_id
from maintainer.artifact.directory import (
    META_FILE,
    PLAN_FILE,
    plan_id_of,
    read_meta,
    read_plan,
    sha256_hex,
    write_plan,
)
from maintainer.artifact.model import Plan
from maintainer.errors import PlanError
from tests.support.plans import clean_effect, delete_file, node, plan, table_plan

PAYLOAD = b"Obj\x01payload"


def sample_plan() -> Plan:
    clean = node(
        "trips",
        "clean",
        (delete_file("p/a.parquet", 10, "older than ECTR"),),
        reasons=("3 superseded file slices",),
        effect=clean_effect(1, 10),
        payloads=("trips.clean.requested",),
    )
    return plan(table_plan("trips", (clean,), path="/t"), project="demo")


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


def test_a_body_made_already_writes_the_same_plan(tmp_path: Path) -> None:
    made = sample_plan()
    payloads = {"trips.clean.requested": PAYLOAD}
    write_plan(tmp_path / "a", made, payloads, "# plan\n", {})
    write_plan(tmp_path / "b", made, payloads, "# plan\n", {}, body=made.body())
    plan_id = compute_plan_id(made.body())
    write_plan(tmp_path / "c", made, payloads, "# plan\n", {}, body=made.body(), plan_id=plan_id)
    assert (tmp_path / "a" / PLAN_FILE).read_bytes() == (tmp_path / "b" / PLAN_FILE).read_bytes()
    assert (tmp_path / "a" / PLAN_FILE).read_bytes() == (tmp_path / "c" / PLAN_FILE).read_bytes()
    assert read_plan(tmp_path / "c").plan_id == plan_id


def test_an_id_given_that_is_not_its_bodys_makes_a_plan_apply_refuses(tmp_path: Path) -> None:
    made = sample_plan()
    payloads = {"trips.clean.requested": PAYLOAD}
    write_plan(tmp_path, made, payloads, "# plan\n", {}, body=made.body(), plan_id="0" * 64)
    with pytest.raises(PlanError, match="changed after planning"):
        read_plan(tmp_path)


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
    made = sample_plan()
    expected_id = plan_id_of(made)
    assert write(tmp_path, made) == expected_id
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


def _rehashed(tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """Edit plan.json and give it the plan id of the edited body (what someone who can edit
    the plan can always do; only the signature needs a key)."""
    data = json.loads((tmp_path / PLAN_FILE).read_text())
    edit(data)
    body = {k: v for k, v in data.items() if k not in (PLAN_ID_FIELD, "payloads", "signature")}
    data[PLAN_ID_FIELD] = compute_plan_id(body)
    (tmp_path / PLAN_FILE).write_text(json.dumps(data))


def _first_action(data: dict[str, Any]) -> dict[str, Any]:
    action: dict[str, Any] = data["tables"][0]["nodes"][0]["actions"][0]
    return action


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda d: _first_action(d).update(size="10"), r"actions\.0\.delete_file\.size"),
        (lambda d: _first_action(d).update(kind="delete_everything"), "delete_everything"),
        (lambda d: _first_action(d).update(recursive=True), r"recursive"),
        (lambda d: _first_action(d).pop("partition"), r"partition"),
        (lambda d: d["tables"][0]["nodes"][0].update(status="done"), r"status"),
        (lambda d: d["tables"][0]["nodes"][0].update(table="other"), r"listed under table trips"),
    ],
    ids=["wrong-type", "unknown-kind", "unknown-field", "missing-field", "bad-status", "foreign-node"],
)
def test_a_rehashed_plan_of_the_wrong_shape_is_refused_naming_the_field(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], says: str
) -> None:
    write(tmp_path)
    _rehashed(tmp_path, edit)
    with pytest.raises(PlanError, match=r"plan\.json is malformed") as info:
        read_plan(tmp_path)
    assert re.search(says, str(info.value))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"tables": ' + "[" * 100_000 + "]" * 100_000 + "}",
            "plan.json is not read as JSON: objects and arrays nested",
        ),
        (
            '{"format_version": 1' + "0" * 100_000 + "}",
            "plan.json is not read as JSON: a number literal of 100,001",
        ),
        ('{"format_version": NaN}', "plan.json is not valid JSON: NaN is not a JSON number"),
    ],
    ids=["deep", "long-number", "nan"],
)
def test_a_hostile_plan_json_is_a_plan_error_naming_it(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / PLAN_FILE).write_text(text)
    with pytest.raises(PlanError) as raised:
        read_plan(tmp_path)
    assert raised.value.message.startswith(message) and raised.value.where == str(tmp_path / PLAN_FILE)


def test_a_plan_json_over_its_cap_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path)
    size = (tmp_path / PLAN_FILE).stat().st_size
    monkeypatch.setattr(artifact, "MAX_PLAN_BYTES", size)
    assert read_plan(tmp_path).plan == sample_plan()
    monkeypatch.setattr(artifact, "MAX_PLAN_BYTES", size - 1)
    with pytest.raises(PlanError, match=f"plan.json is {size:,} bytes, more than the {size - 1:,} bytes"):
        read_plan(tmp_path)


def test_a_payload_over_its_cap_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path)
    monkeypatch.setattr(artifact, "MAX_PAYLOAD_BYTES", len(PAYLOAD) - 1)
    with pytest.raises(PlanError, match="plan payload is 11 bytes, more than the 10 bytes") as raised:
        read_plan(tmp_path)
    assert raised.value.where == str(tmp_path / "payloads" / "trips.clean.requested")


def test_a_hostile_plan_meta_is_read_as_empty(tmp_path: Path) -> None:
    write(tmp_path)
    assert read_meta(tmp_path)["created_at"] == "now"
    (tmp_path / META_FILE).write_text("[" * 100_000 + "]" * 100_000)
    assert read_meta(tmp_path) == {}
