"""Rollback request execution: deletes, refusals, moved tables, rollback blocks written once."""

from __future__ import annotations

from pathlib import Path

from maintainer.executors.common.rollback_deletes import RequestContext, execute_request
from maintainer.hudi.logformat import BlockType, read_log_file
from maintainer.hudi.payloads import RollbackRequest
from maintainer.storage import Storage

BASE = "f1-0_0-1-2_20260101000000000.parquet"
LOG = ".f2-0_20260101000000000.log.1_0-1-2"


def context(tmp_path: Path, version: int = 6) -> RequestContext:
    storage = Storage(str(tmp_path))
    return RequestContext(storage, storage.uri(""), "20260102000000000", "20260101120000000", version)


def test_deletes_data_files_counts_missing_ones_and_refuses_anything_else(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / BASE).write_bytes(b"x")
    (tmp_path / ".hoodie").mkdir()
    (tmp_path / ".hoodie" / "hoodie.properties").write_bytes(b"keep")
    root = str(tmp_path)
    request = RollbackRequest(
        partition_path="p",
        files_to_be_deleted=(f"{root}/p/{BASE}", f"{root}/p/gone_0-1-2_20260101000000000.parquet",
                             f"{root}/.hoodie/hoodie.properties"),
    )  # fmt: skip
    result = execute_request(ctx, request)
    assert not (tmp_path / "p" / BASE).exists()
    assert (tmp_path / ".hoodie" / "hoodie.properties").exists()
    assert len(result.deleted) == 2 and result.failed == (f"{root}/.hoodie/hoodie.properties",)


def test_paths_under_another_base_path_are_taken_by_partition_and_name(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / BASE).write_bytes(b"x")
    request = RollbackRequest(partition_path="p", files_to_be_deleted=(f"/opt/elsewhere/t/p/{BASE}",))
    assert execute_request(ctx, request).deleted
    assert not (tmp_path / "p" / BASE).exists()


def test_v6_log_requests_get_one_rollback_block_even_when_retried(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / LOG).write_bytes(b"")
    uri = ctx.storage.uri(f"p/{LOG}")
    request = RollbackRequest(
        partition_path="p", file_id="f2-0", latest_base_instant="20260101000000000",
        log_blocks_to_be_deleted={uri: 0},
    )  # fmt: skip
    first = execute_request(ctx, request)
    again = execute_request(ctx, request)
    assert first.rollback_log_files == again.rollback_log_files
    (written,) = first.rollback_log_files
    assert written.endswith(".f2-0_20260101000000000.log.2_1-0-1")
    (block,) = read_log_file(ctx.storage, "p/.f2-0_20260101000000000.log.2_1-0-1")
    assert block.block_type is BlockType.COMMAND
    assert (block.instant_time, block.target_instant_time) == (ctx.rollback_time, ctx.target_time)
    assert first.log_files_from_failed_commit == {uri: 0}


def test_v8_log_requests_delete_the_log_files(tmp_path: Path) -> None:
    ctx = context(tmp_path, version=8)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / LOG).write_bytes(b"12345")
    uri = ctx.storage.uri(f"p/{LOG}")
    request = RollbackRequest(partition_path="p", file_id="f2-0", log_blocks_to_be_deleted={uri: 5})
    result = execute_request(ctx, request)
    assert not (tmp_path / "p" / LOG).exists() and not result.rollback_log_files
    assert result.log_files_from_failed_commit == {uri: 5}
