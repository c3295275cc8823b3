"""What apply may carry out of an approved rollback: the plan is a request, never authority.

A plan's rollback requests are checked against the requests re-derived from the table as it is
now (markers, listing, timeline: the planner's own ``rollback_plan``), and only the intersection
is carried out. A file is deleted (or a log file gets a rollback block) only if

* the plan approved it and the table yields it now, for the same instant;
* its path lies inside the table's base path (no ``..``, no path under another base path: a file
  of another table is never taken "by partition and file name");
* its name is a Hudi data file (base or log), not under ``.hoodie/``;
* for a deletion, its name carries the instant rolled back (a v6 log file that only gets a
  rollback command block belongs to an older slice: its name carries that slice's base instant,
  and the table's markers or log blocks decide, as ``requests.py`` does).

Everything else the plan asks for is dropped, with the reason; the requests kept are the table's
own (partition, file group, paths and sizes as re-derived), in the re-derived order, so the
``.rollback.requested`` written is byte-identical to the approved payload when nothing drifted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from maintainer.executors.common.rollback_requests import relative_path
from maintainer.executors.rollback.model import DroppedPath
from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName, is_data_file_name
from maintainer.hudi.payloads import RollbackPlan, RollbackRequest

OUTSIDE = "outside the table"
NOT_DATA = "not a Hudi data file"
OTHER_INSTANT = "not a file of the rolled-back instant"
NOT_DERIVED = "not a file the table yields for this rollback now"

BlockKey = tuple[str, str, str, str]
"""(partition, file id, base instant, table-relative log path) of a rollback-block request."""


def inside_table(table_uri: str, path: str) -> str | None:
    """The table-relative path of a payload path, or None when it is not inside the table's base
    path (under another base path, or leaving it through ``..``)."""
    relative = relative_path(table_uri, path)
    if not relative:
        return None
    if any(part in ("", ".", "..") for part in relative.split("/")):
        return None
    return relative


def _name_instant(name: str) -> str | None:
    parsed_base = BaseFileName.parse(name)
    if parsed_base is not None:
        return parsed_base.instant_time
    parsed_log = LogFileName.parse(name)
    return parsed_log.instant_time if parsed_log is not None else None


def why_not(table_uri: str, path: str, target: str, *, deletes: bool) -> str | None:
    """Why ``path`` may never be touched by the rollback of ``target`` (None: it may, if the
    table yields it too)."""
    relative = inside_table(table_uri, path)
    if relative is None:
        return f"{OUTSIDE} ({table_uri})"
    name = relative.rsplit("/", 1)[-1]
    if relative.startswith(".hoodie/") or not is_data_file_name(name):
        return NOT_DATA
    if deletes and _name_instant(name) != target:
        return f"{OTHER_INSTANT} {target} (its name carries {_name_instant(name)})"
    return None


def _block_key(request: RollbackRequest, relative: str) -> BlockKey:
    return (request.partition_path, request.file_id or "", request.latest_base_instant or "", relative)


@dataclass(frozen=True)
class _Approved:
    deletes: frozenset[str]
    """Table-relative paths the plan approved deleting (and may)."""
    blocks: frozenset[BlockKey]
    """Log files approved for a rollback block (or, table version 8+, deletion)."""
    dropped: tuple[DroppedPath, ...]


def _approved(
    table_uri: str, target: str, requests: Iterable[RollbackRequest], table_version: int
) -> _Approved:
    deletes: set[str] = set()
    blocks: set[BlockKey] = set()
    dropped: list[DroppedPath] = []
    for request in requests:
        for path in request.files_to_be_deleted:
            reason = why_not(table_uri, path, target, deletes=True)
            if reason is None:
                deletes.add(inside_table(table_uri, path) or "")
            else:
                dropped.append(DroppedPath(path, target, reason))
        for path in request.log_blocks_to_be_deleted or {}:
            # table version 8+ deletes the failed log files instead of appending a block
            reason = why_not(table_uri, path, target, deletes=table_version >= 8)
            if reason is None:
                blocks.add(_block_key(request, inside_table(table_uri, path) or ""))
            else:
                dropped.append(DroppedPath(path, target, reason))
    return _Approved(frozenset(deletes), frozenset(blocks), tuple(dropped))


def _kept(request: RollbackRequest, table_uri: str, approved: _Approved) -> RollbackRequest | None:
    files = tuple(p for p in request.files_to_be_deleted if inside_table(table_uri, p) in approved.deletes)
    blocks: Mapping[str, int] = {
        path: size
        for path, size in (request.log_blocks_to_be_deleted or {}).items()
        if _block_key(request, inside_table(table_uri, path) or "") in approved.blocks
    }
    if not files and not blocks:
        return None
    return RollbackRequest(
        partition_path=request.partition_path,
        file_id=request.file_id,
        latest_base_instant=request.latest_base_instant,
        files_to_be_deleted=files,
        log_blocks_to_be_deleted=dict(blocks),
    )


def _derived_keys(table_uri: str, requests: Iterable[RollbackRequest]) -> tuple[set[str], set[BlockKey]]:
    deletes: set[str] = set()
    blocks: set[BlockKey] = set()
    for request in requests:
        deletes.update(r for p in request.files_to_be_deleted if (r := inside_table(table_uri, p)))
        for path in request.log_blocks_to_be_deleted or {}:
            if (relative := inside_table(table_uri, path)) is not None:
                blocks.add(_block_key(request, relative))
    return deletes, blocks


def intersect(
    approved: RollbackPlan, current: RollbackPlan, table_uri: str, table_version: int
) -> tuple[RollbackPlan, tuple[DroppedPath, ...]]:
    """The rollback plan to carry out: the ``current`` (re-derived) requests, restricted to what
    ``approved`` asked for; and every approved path left alone, with the reason."""
    target = current.instant_to_rollback.commit_time if current.instant_to_rollback else ""
    checked = _approved(table_uri, target, approved.rollback_requests or (), table_version)
    current_requests = current.rollback_requests or ()
    derived_deletes, derived_blocks = _derived_keys(table_uri, current_requests)
    dropped = list(checked.dropped)
    source = "markers or listing"
    for request in approved.rollback_requests or ():
        for path in request.files_to_be_deleted:
            relative = inside_table(table_uri, path)
            if relative in checked.deletes and relative not in derived_deletes:
                dropped.append(DroppedPath(path, target, f"{NOT_DERIVED} ({source})"))
        for path in request.log_blocks_to_be_deleted or {}:
            key = _block_key(request, inside_table(table_uri, path) or "")
            if key in checked.blocks and key not in derived_blocks:
                dropped.append(DroppedPath(path, target, f"{NOT_DERIVED} ({source})"))
    kept = tuple(k for r in current_requests if (k := _kept(r, table_uri, checked)) is not None)
    return replace(current, rollback_requests=kept), tuple(dropped)
