"""The files of a partition's latest merged file slices (Hudi's
``getLatestMergedFileSlicesBeforeOrOn``): per file group its latest slice, merged with the slice
before it when the latest is the empty slice a pending compaction opened.

A table service writes its metadata records before its own instant completes, so it sees its
file groups in the slices its pending instant opened: :func:`latest_files_after` gives the
slices as they will be once it completes (its new base files, with the log files written into
those slices since), as Hudi's writer sees them (``IncludingInflight``)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence

from maintainer.hudi.file_groups.filemodel import FileGroup, FileSlice
from maintainer.hudi.file_groups.fsview import FileSystemView
from maintainer.hudi.payloads.write_stat import WriteStat


def latest_merged_files(view: FileSystemView, partitions: Iterable[str]) -> dict[str, list[str]]:
    """Partition -> file names (base and log files) of its latest merged slices."""
    return {p: [name for g in view.file_groups(p) for name in _merged_names(g)] for p in partitions}


def latest_files_after(
    view: FileSystemView, instant_time: str, written: Mapping[str, Sequence[WriteStat]]
) -> dict[str, list[str]]:
    """Partition -> file names of its latest merged slices once the pending base-file write at
    ``instant_time`` completes (``written``: its write stats per partition)."""
    result: dict[str, list[str]] = {}
    for partition, stats in written.items():
        new = {s.file_id: posixpath.basename(s.path) for s in stats if s.file_id and s.path}
        names: list[str] = []
        for group in view.file_groups(partition):
            if group.file_id in new:
                names.append(new.pop(group.file_id))
                names.extend(_logs_since(group, instant_time))
            else:
                names.extend(_merged_names(group))
        result[partition] = names + list(new.values())
    return result


def _logs_since(group: FileGroup, instant_time: str) -> list[str]:
    latest = group.latest_slice
    if latest is None or latest.base_instant != instant_time:
        return []
    return [log.name for log in latest.log_files]


def _merged_names(group: FileGroup) -> list[str]:
    return [f.name for file_slice in _merged_latest(group.slices_newest_first()) for f in file_slice.files]


def _merged_latest(newest_first: list[FileSlice]) -> list[FileSlice]:
    if not newest_first:
        return []
    latest = newest_first[0]
    if latest.base_file is None and len(newest_first) > 1:
        return [newest_first[1], latest]
    return [latest]
