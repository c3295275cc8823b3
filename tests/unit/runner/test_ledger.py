"""The table is the ledger: plan ids in the clean plan and clean metadata."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.errors import PlanError
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import (
    CleanerPlan,
    CleanMetadata,
    CommitMetadata,
    CompactionPlan,
    encode_avro,
    encode_commit_metadata_json,
)
from maintainer.hudi.table.state import open_table
from maintainer.runner.ledger import (
    NodeRecord,
    check_record,
    ledger_actions,
    read_record,
    record_path,
    write_record,
)
from maintainer.services.common.ledger import PLAN_ID_KEY, find_plan, is_applied, plan_id_of_instant
from maintainer.services.common.ledger import PLAN_ID_KEY as CLEAN_PAYLOAD_KEY
from maintainer.storage.limits import MAX_RECORD_BYTES


def _table(tmp_path: Path, version: int) -> TimelineWriter:
    path = tmp_path / f"t{version}"
    generate(
        str(path), DatagenSpec("t", "cow", version, WorkloadSpec(partitions=1, commits=2, rows_per_commit=5))
    )
    table = open_table(str(path))
    return TimelineWriter(table.storage, table.snapshot.config)


def _plan(plan_id: str | None) -> bytes:
    extra = {PLAN_ID_KEY: plan_id} if plan_id else None
    return encode_avro(CleanerPlan(policy="KEEP_LATEST_COMMITS", extra_metadata=extra))


def _metadata(time: str, plan_id: str | None) -> bytes:
    extra = {PLAN_ID_KEY: plan_id} if plan_id else None
    metadata = CleanMetadata(
        start_clean_time=time,
        time_taken_in_millis=1,
        total_files_deleted=0,
        earliest_commit_to_retain="",
        partition_metadata={},
        extra_metadata=extra,
    )
    return encode_avro(metadata)


def test_the_key_is_the_one_the_clean_payloads_use() -> None:
    assert PLAN_ID_KEY == CLEAN_PAYLOAD_KEY == "maintainer.plan_id"


def test_a_completed_clean_carrying_the_plan_id_means_applied(tmp_path: Path) -> None:
    for version in (6, 8):
        writer = _table(tmp_path, version)
        requested = writer.create_requested(Action.CLEAN, _plan("p1"))
        inflight = writer.transition_to_inflight(requested, b"")
        completed = writer.complete(inflight, _metadata(requested.timestamp, "p1"))
        timeline = writer.timeline()
        assert plan_id_of_instant(writer.storage, timeline, completed) == "p1"
        found = is_applied(writer.storage, timeline, "p1")
        assert found is not None and found.timestamp == completed.timestamp
        assert is_applied(writer.storage, timeline, "p2") is None


def test_a_pending_clean_is_an_interrupted_apply_not_an_applied_plan(tmp_path: Path) -> None:
    writer = _table(tmp_path, 6)
    requested = writer.create_requested(Action.CLEAN, _plan("p1"))
    writer.transition_to_inflight(requested, _plan("p1"))
    timeline = writer.timeline()
    (entry,) = find_plan(writer.storage, timeline, "p1")
    assert entry.instant.timestamp == requested.timestamp and not entry.completed
    assert is_applied(writer.storage, timeline, "p1") is None


def test_a_clean_whose_completion_was_cut_short_is_not_applied(tmp_path: Path) -> None:
    """Its completed file half written (a crash mid-write where writes are not atomic): the plan
    id still comes from the requested plan, and the clean is not done (never "already
    applied"); apply completes it again."""
    for version in (6, 8):
        writer = _table(tmp_path, version)
        requested = writer.create_requested(Action.CLEAN, _plan("p1"))
        inflight = writer.transition_to_inflight(requested, _plan("p1"))
        completed = writer.complete(inflight, _metadata(requested.timestamp, "p1"))
        timeline = writer.timeline()
        path = timeline.file_path(completed)
        whole = writer.storage.read_bytes(path)
        (writer.storage.arrow_fs.open_output_stream(writer.storage.full_path(path))).close()  # emptied
        for cut in (b"", whole[: len(whole) // 2]):
            if cut:
                writer.storage.write_bytes(path, cut)
            (entry,) = find_plan(writer.storage, timeline, "p1")
            assert entry.instant.timestamp == requested.timestamp and not entry.completed
            assert is_applied(writer.storage, timeline, "p1") is None


def test_cleans_written_by_hudi_carry_no_plan_id(tmp_path: Path) -> None:
    writer = _table(tmp_path, 8)
    requested = writer.create_requested(Action.CLEAN, _plan(None))
    completed = writer.complete(
        writer.transition_to_inflight(requested), _metadata(requested.timestamp, None)
    )
    timeline = writer.timeline()
    assert plan_id_of_instant(writer.storage, timeline, completed) is None
    commit = timeline.completed_commits()[0]
    assert plan_id_of_instant(writer.storage, timeline, commit) is None
    assert find_plan(writer.storage, timeline, "p1") == []


def test_a_compaction_carries_the_plan_id_in_its_plan_and_in_its_commit(tmp_path: Path) -> None:
    for version in (6, 8):
        writer = _table(tmp_path, version)
        plan = encode_avro(CompactionPlan(operations=(), extra_metadata={PLAN_ID_KEY: "p9"}))
        requested = writer.create_requested(Action.COMPACTION, plan)
        timeline = writer.timeline()
        (pending,) = find_plan(writer.storage, timeline, "p9")
        assert not pending.completed and is_applied(writer.storage, timeline, "p9") is None
        inflight = writer.transition_to_inflight(requested, b"")
        extra = {PLAN_ID_KEY: "p9"}
        commit = CommitMetadata(partition_to_write_stats={}, compacted=True, extra_metadata=extra)
        content = encode_avro(commit) if version >= 8 else encode_commit_metadata_json(commit)
        writer.complete(inflight, content)
        applied = is_applied(writer.storage, writer.timeline(), "p9")
        assert applied is not None and applied.timestamp == requested.timestamp
        assert applied.action is Action.COMPACTION
        assert is_applied(writer.storage, writer.timeline(), "p9", ledger_actions("clean")) is None
        assert is_applied(writer.storage, writer.timeline(), "p9", ledger_actions("compaction")) == applied


def test_a_node_record_is_written_once_read_back_and_ignored_by_the_timeline(tmp_path: Path) -> None:
    writer = _table(tmp_path, 6)
    storage = writer.storage
    instants = [i.timestamp for i in writer.timeline().instants]
    plan_id = "ab" * 32
    assert read_record(storage, plan_id, "archive") is None
    write_record(storage, NodeRecord(plan_id, "t", "archive", "2026-01-01T00:00:00.000Z", "2 archived"))
    write_record(storage, NodeRecord(plan_id, "t", "archive", "later", "again"))  # write-once: kept
    record = read_record(storage, plan_id, "archive")
    assert record == NodeRecord(plan_id, "t", "archive", "2026-01-01T00:00:00.000Z", "2 archived")
    assert storage.exists(f".hoodie/.maintainer/applied/{plan_id}/archive.json")
    assert [i.timestamp for i in open_table(storage.base_uri).snapshot.timeline.instants] == instants


def test_bytes_that_are_not_a_record_are_refused_naming_the_file(tmp_path: Path) -> None:
    writer = _table(tmp_path, 8)
    for junk in (b"{not json", b"[]", b'{"plan_id": 1}', b"x" * (MAX_RECORD_BYTES + 1), b"[" * 100_000):
        writer.storage.write_bytes(record_path("cd" * 32, "rollback"), junk)
        with pytest.raises(
            PlanError,
            match=r"ledger record .* cannot be trusted: it is (not|larger than any) a? ?ledger record",
        ) as err:
            read_record(writer.storage, "cd" * 32, "rollback")
        assert err.value.where is not None and err.value.where.endswith("/rollback.json")


EXPECTED = NodeRecord("cd" * 32, "t", "clean", "", "", {"t.clean.requested": "e" * 64})


@pytest.mark.parametrize(
    "forged",
    [
        replace(EXPECTED, plan_id="ab" * 32),
        replace(EXPECTED, table="other"),
        replace(EXPECTED, service="archive"),
        replace(EXPECTED, payloads={}),
        replace(EXPECTED, payloads={"t.clean.requested": "f" * 64}),
    ],
)
def test_a_record_that_does_not_record_this_node_is_refused(tmp_path: Path, forged: NodeRecord) -> None:
    storage = _table(tmp_path, 8).storage
    with pytest.raises(PlanError, match="does not record this node of this plan"):
        check_record(storage, forged, EXPECTED, None)
    assert check_record(storage, replace(EXPECTED, summary="done"), EXPECTED, None).summary == "done"


def test_with_a_key_only_a_record_signed_with_it_is_believed(tmp_path: Path) -> None:
    storage = _table(tmp_path, 8).storage
    signed = replace(EXPECTED, finished_at="2026-01-01T00:00:00.000Z").signed(b"k1")
    assert signed.signature.startswith("hmac-sha256:")
    write_record(storage, signed)
    stored = read_record(storage, EXPECTED.plan_id, "clean")
    assert stored == signed
    assert check_record(storage, stored, EXPECTED, b"k1") == signed
    assert check_record(storage, stored, EXPECTED, None) == signed  # no key: the fields decide
    for record, key in ((signed, b"k2"), (replace(signed, signature=""), b"k1"),
                        (replace(signed, summary="edited"), b"k1")):  # fmt: skip
        with pytest.raises(PlanError, match="signature does not match"):
            check_record(storage, record, EXPECTED, key)


@pytest.mark.parametrize(
    "hostile",
    [b"[" * 100_000 + b"]" * 100_000, b'{"plan_id": ' + b"1" * 100_000 + b"}"],
    ids=["deep", "long-number"],
)
def test_a_hostile_record_is_refused_as_no_record(tmp_path: Path, hostile: bytes) -> None:
    writer = _table(tmp_path, 8)
    writer.storage.write_bytes(record_path("cd" * 32, "clean"), hostile)
    with pytest.raises(PlanError, match="it is not a ledger record"):
        read_record(writer.storage, "cd" * 32, "clean")


def test_a_record_over_its_cap_is_not_read(tmp_path: Path) -> None:
    writer = _table(tmp_path, 8)
    path = record_path("cd" * 32, "clean")
    writer.storage.write_bytes(path, b"")
    os.truncate(tmp_path / "t8" / path, 300 * 1024 * 1024)  # sparse: refused by its size, unread
    with pytest.raises(PlanError, match="larger than any ledger record"):
        read_record(writer.storage, "cd" * 32, "clean")


def test_record_paths_take_plain_names_only() -> None:
    assert record_path("ef" * 32, "savepoint_create").endswith("/savepoint_create.json")
    for plan_id, service in (("../x", "clean"), ("ef" * 32, "../../victim"), ("ef" * 32, "a/b")):
        with pytest.raises(PlanError, match="cannot name a ledger record"):
            record_path(plan_id, service)
