"""The rollback requests of one failed instant (Hudi's marker-based and listing-based strategies).

* From markers: a CREATE or MERGE marker names a file the instant wrote: delete it. An APPEND
  marker (table version 6) names a log file the instant appended blocks to: a rollback command
  block is appended to that file group (``logBlocksToBeDeleted``: the log file and its size).
* By listing (no markers): every data file named by the instant is deleted (base files, v8 log
  files, v6 log files of a slice the instant opened); v6 log files of older slices holding blocks
  of the instant get a rollback command block.

Paths are absolute, as Hudi writes them: files to delete without a scheme for local tables
(``/abs/path``), log files with it (``file:/abs/path``).
"""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.executors.common.markers import Marker
from maintainer.executors.common.rollback_requests import absolute_uri, grouped_deletes
from maintainer.hudi.file_groups.filemodel import LogFile
from maintainer.hudi.file_groups.filenames import MarkerType
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.payloads import InstantInfo, RollbackPlan, RollbackRequest
from maintainer.services.rollback.model import RollbackInputs


def _append_request(inputs: RollbackInputs, log: LogFile) -> RollbackRequest:
    return RollbackRequest(
        partition_path=log.partition,
        file_id=log.file_id,
        latest_base_instant=log.instant_time,
        files_to_be_deleted=(),
        log_blocks_to_be_deleted={absolute_uri(inputs.table_uri, log.path): log.size},
    )


def _merged_appends(requests: Iterable[RollbackRequest]) -> list[RollbackRequest]:
    """One log-block request per (partition, file group, base instant), as Hudi merges them:
    each file group then gets exactly one rollback block."""
    merged: dict[tuple[str, str, str], dict[str, int]] = {}
    for request in requests:
        key = (request.partition_path, request.file_id or "", request.latest_base_instant or "")
        merged.setdefault(key, {}).update(request.log_blocks_to_be_deleted or {})
    return [
        RollbackRequest(
            partition_path=partition,
            file_id=file_id,
            latest_base_instant=base,
            files_to_be_deleted=(),
            log_blocks_to_be_deleted=dict(sorted(blocks.items())),
        )
        for (partition, file_id, base), blocks in sorted(merged.items())
    ]


def requests_from_markers(inputs: RollbackInputs, markers: Iterable[Marker]) -> list[RollbackRequest]:
    files = {f.path: f for f in inputs.files}
    deletes: list[tuple[str, str]] = []
    appends: list[RollbackRequest] = []
    for marker in sorted(set(markers), key=lambda m: (m.path, m.marker_type.value)):
        if marker.marker_type is not MarkerType.APPEND:
            deletes.append((marker.partition, marker.path))
            continue
        log = files.get(marker.path)
        if isinstance(log, LogFile):
            appends.append(_append_request(inputs, log))
    return grouped_deletes(inputs.table_uri, deletes) + _merged_appends(appends)


def requests_by_listing(inputs: RollbackInputs, instant_time: str) -> list[RollbackRequest]:
    deletes: list[tuple[str, str]] = []
    appends: list[RollbackRequest] = []
    for data_file in sorted(inputs.files, key=lambda f: f.path):
        if data_file.instant_time == instant_time:
            deletes.append((data_file.partition, data_file.path))
        elif isinstance(data_file, LogFile) and instant_time in inputs.log_block_instants.get(
            data_file.path, ()
        ):
            appends.append(_append_request(inputs, data_file))
    return grouped_deletes(inputs.table_uri, deletes) + _merged_appends(appends)


def rollback_plan(inputs: RollbackInputs, target: Instant) -> tuple[RollbackPlan, str]:
    """The HoodieRollbackPlan undoing the failed write ``target``, and how its files were found
    (a table service's failed attempt is planned by ``table_service.py``)."""
    markers = inputs.markers.get(target.timestamp)
    if markers:
        requests, source = requests_from_markers(inputs, markers), "markers"
    else:
        requests, source = requests_by_listing(inputs, target.timestamp), "listing"
    info = InstantInfo(commit_time=target.timestamp, action=target.action.value)
    return RollbackPlan(instant_to_rollback=info, rollback_requests=tuple(requests)), source
