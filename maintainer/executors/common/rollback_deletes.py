"""Carry out one rollback request (one task per request: in process, or a Spark task).

* files to delete are deleted (a file already gone counts as deleted: a retried rollback finds
  its first attempt's work done); only Hudi data files are ever deleted (anything else in a plan
  is recorded as a failed delete), and a path under another base path (a moved table) is taken
  by partition and file name;
* table version 6 log requests: a rollback command block (INSTANT_TIME = the rollback,
  TARGET_INSTANT_TIME = the failed instant) goes into a new log file version of the file group's
  slice, as Hudi writes it; a retry finds the block it wrote before and writes no second one;
* table version 8+ has no command blocks: the failed log files are deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from maintainer.errors import StorageError
from maintainer.executors.common.rollback_requests import absolute_uri, relative_path
from maintainer.hudi.file_groups.filenames import DEFAULT_WRITE_TOKEN, LogFileName, is_data_file_name
from maintainer.hudi.logformat import BlockType, next_log_file_v6, read_log_file, rollback_command_block
from maintainer.hudi.payloads import RollbackRequest
from maintainer.storage import Storage


@dataclass(frozen=True)
class RequestContext:
    storage: Storage
    table_uri: str
    rollback_time: str
    target_time: str
    table_version: int


@dataclass(frozen=True)
class RequestResult:
    partition: str
    deleted: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    rollback_log_files: Mapping[str, int] = field(default_factory=dict)
    log_files_from_failed_commit: Mapping[str, int] = field(default_factory=dict)


def _table_path(ctx: RequestContext, partition: str, absolute: str) -> str:
    """The table-relative path of a payload path; a path recorded under another base path (a
    table that was moved since Hudi planned the rollback) is taken by partition and name."""
    relative = relative_path(ctx.table_uri, absolute)
    if relative is not None:
        return relative
    name = absolute.rsplit("/", 1)[-1]
    return f"{partition}/{name}" if partition else name


def _delete(ctx: RequestContext, partition: str, absolute: str) -> tuple[bool, int | None]:
    """(deleted or already gone, size of a log file before deletion)."""
    relative = _table_path(ctx, partition, absolute)
    if relative.startswith(".hoodie/") or not is_data_file_name(relative.rsplit("/", 1)[-1]):
        return False, None  # a rollback deletes data files only, never anything else
    try:
        size = ctx.storage.delete_telling_size(relative)
    except StorageError:
        return False, None
    is_log = LogFileName.parse(relative.rsplit("/", 1)[-1]) is not None
    return True, (size if is_log else None)


def _existing_rollback_block(ctx: RequestContext, partition: str, log: LogFileName) -> tuple[str, int] | None:
    """A log file of the slice already holding this rollback's command block (a retry)."""
    for info in ctx.storage.list_dir(partition):
        parsed = LogFileName.parse(info.name)
        if parsed is None or parsed.file_id != log.file_id or parsed.instant_time != log.instant_time:
            continue
        blocks = read_log_file(ctx.storage, info.path)
        if any(
            b.block_type is BlockType.COMMAND
            and b.instant_time == ctx.rollback_time
            and b.target_instant_time == ctx.target_time
            for b in blocks
        ):
            return info.path, info.size
    return None


def _append_rollback_block(ctx: RequestContext, request: RollbackRequest) -> tuple[str, int]:
    partition = request.partition_path
    file_id, base = request.file_id or "", request.latest_base_instant or ""
    existing = _existing_rollback_block(ctx, partition, LogFileName(file_id, base, 1))
    if existing is not None:
        return existing
    names = [info.name for info in ctx.storage.list_dir(partition)]
    log = next_log_file_v6(names, file_id, base, DEFAULT_WRITE_TOKEN)
    path = f"{partition}/{log.name}" if partition else log.name
    block = rollback_command_block(ctx.rollback_time, ctx.target_time)
    ctx.storage.write_if_absent(path, block)
    return path, len(block)


def execute_request(ctx: RequestContext, request: RollbackRequest) -> RequestResult:
    deleted: list[str] = []
    failed: list[str] = []
    rollback_logs: dict[str, int] = {}
    failed_logs: dict[str, int] = {}
    to_delete = list(request.files_to_be_deleted)
    log_blocks = dict(request.log_blocks_to_be_deleted or {})
    if log_blocks and ctx.table_version >= 8:
        to_delete += list(log_blocks)
        log_blocks = {}
    for absolute in to_delete:
        ok, log_size = _delete(ctx, request.partition_path, absolute)
        (deleted if ok else failed).append(absolute)
        if ok and log_size is not None:
            failed_logs[absolute_uri(ctx.table_uri, _table_path(ctx, request.partition_path, absolute))] = (
                log_size
            )
    if log_blocks:
        path, size = _append_rollback_block(ctx, request)
        rollback_logs[absolute_uri(ctx.table_uri, path)] = size
        failed_logs.update(log_blocks)
    return RequestResult(request.partition_path, tuple(deleted), tuple(failed), rollback_logs, failed_logs)
