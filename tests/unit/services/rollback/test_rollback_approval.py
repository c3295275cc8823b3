"""The intersection apply carries out of an approved rollback (services/rollback/approval.py):
only paths both approved and re-derived from the table, inside it, Hudi data files of the
instant rolled back; everything else dropped with the reason."""

from __future__ import annotations

from dataclasses import replace

from maintainer.hudi import payloads
from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName
from maintainer.hudi.payloads import InstantInfo, RollbackPlan, RollbackRequest
from maintainer.services.rollback.approval import (
    NOT_DATA,
    NOT_DERIVED,
    OTHER_INSTANT,
    OUTSIDE,
    inside_table,
    intersect,
)

URI = "file:/data/t"
FAILED = "20260101090000000"
LIVE = "20260101080000000"
FAILED_BASE = BaseFileName("fg1", "0-1-2", FAILED).name
FAILED_BASE_2 = BaseFileName("fg2", "0-1-2", FAILED).name
LIVE_BASE = BaseFileName("fg1", "0-1-2", LIVE).name
OLD_SLICE_LOG = LogFileName("fg3", LIVE, 1, "0-1-2").name


def deletes(partition: str, *names: str) -> RollbackRequest:
    paths = tuple(f"/data/t/{partition}/{n}" for n in names)
    return RollbackRequest(
        partition_path=partition,
        file_id="",
        latest_base_instant="",
        files_to_be_deleted=paths,
        log_blocks_to_be_deleted={},
    )


def block(partition: str, file_id: str, base: str, name: str, size: int = 50) -> RollbackRequest:
    return RollbackRequest(
        partition_path=partition,
        file_id=file_id,
        latest_base_instant=base,
        files_to_be_deleted=(),
        log_blocks_to_be_deleted={f"file:/data/t/{partition}/{name}": size},
    )


def plan(*requests: RollbackRequest) -> RollbackPlan:
    return RollbackPlan(
        instant_to_rollback=InstantInfo(commit_time=FAILED, action="commit"), rollback_requests=requests
    )


def with_files(request: RollbackRequest, *paths: str) -> RollbackRequest:
    return replace(request, files_to_be_deleted=request.files_to_be_deleted + paths)


CURRENT = plan(deletes("p", FAILED_BASE, FAILED_BASE_2), block("p", "fg3", LIVE, OLD_SLICE_LOG))


def test_an_unedited_plan_is_carried_out_exactly_and_byte_identical() -> None:
    kept, dropped = intersect(CURRENT, CURRENT, URI, 6)
    assert dropped == ()
    assert payloads.encode_avro(kept) == payloads.encode_avro(CURRENT)


def test_added_paths_are_dropped_with_the_reason_and_never_kept() -> None:
    attacks = {
        f"/data/t/p/{LIVE_BASE}": OTHER_INSTANT,
        f"/data/t/../victim/{FAILED_BASE}": OUTSIDE,
        f"/data/other/p/{FAILED_BASE}": OUTSIDE,
        f"file:/data/t/p/../../victim/{FAILED_BASE}": OUTSIDE,
        "/data/t/p/notes.txt": NOT_DATA,
        f"/data/t/.hoodie/{FAILED}.commit": NOT_DATA,
        f"/data/t/p/{BaseFileName('fg9', '0-1-2', FAILED).name}": NOT_DERIVED,
    }
    first, second = CURRENT.rollback_requests or ()
    approved = plan(with_files(first, *attacks), second)
    kept, dropped = intersect(approved, CURRENT, URI, 6)
    assert payloads.encode_avro(kept) == payloads.encode_avro(CURRENT)
    assert {d.path for d in dropped} == set(attacks)
    for d in dropped:
        assert d.target == FAILED and d.reason.startswith(attacks[d.path]), d


def test_only_the_approved_part_of_what_the_table_yields_is_kept() -> None:
    """Files the table yields now that the plan did not approve are not deleted either."""
    approved = plan(deletes("p", FAILED_BASE))
    kept, dropped = intersect(approved, CURRENT, URI, 6)
    assert kept.rollback_requests == (deletes("p", FAILED_BASE),)
    assert dropped == ()


def test_an_empty_approval_keeps_nothing() -> None:
    kept, dropped = intersect(plan(), CURRENT, URI, 6)
    assert kept.rollback_requests == () and dropped == ()


def test_a_rollback_block_is_kept_only_for_the_same_file_group_and_slice() -> None:
    """A v6 log of an older slice gets a block (its name carries the slice's instant, not the
    failed one); redirecting the block to another file group or slice is dropped."""
    moved = block("p", "fg4", LIVE, OLD_SLICE_LOG)
    approved = plan(deletes("p", FAILED_BASE, FAILED_BASE_2), moved)
    kept, dropped = intersect(approved, CURRENT, URI, 6)
    assert kept.rollback_requests == (deletes("p", FAILED_BASE, FAILED_BASE_2),)
    assert [(d.path, d.reason.startswith(NOT_DERIVED)) for d in dropped] == [
        (f"file:/data/t/p/{OLD_SLICE_LOG}", True)
    ]


def test_on_table_version_8_a_failed_log_must_carry_the_instant() -> None:
    """Version 8+ deletes the failed log files: a log of another instant is never one."""
    current = plan(block("p", "fg3", LIVE, OLD_SLICE_LOG))
    kept, dropped = intersect(current, current, URI, 8)
    assert kept.rollback_requests == ()
    assert [d.reason.startswith(OTHER_INSTANT) for d in dropped] == [True]
    own = plan(block("p", "fg3", FAILED, LogFileName("fg3", FAILED, 1, "0-1-2").name))
    assert intersect(own, own, URI, 8) == (own, ())


def test_inside_table_refuses_parent_segments_and_other_base_paths() -> None:
    assert inside_table(URI, f"/data/t/p/{FAILED_BASE}") == f"p/{FAILED_BASE}"
    assert inside_table(URI, f"file:/data/t/p/{FAILED_BASE}") == f"p/{FAILED_BASE}"
    assert inside_table(URI, "/data/t/p/../x.parquet") is None
    assert inside_table(URI, "/data/t/./p/x.parquet") is None
    assert inside_table(URI, "/data/t2/p/x.parquet") is None
    assert inside_table(URI, "/data/t/") is None
