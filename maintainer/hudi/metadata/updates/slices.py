"""The files of a partition's latest merged file slices (Hudi's
``getLatestMergedFileSlicesBeforeOrOn``): per file group its latest slice, merged with the slice
before it when the latest is the empty slice a pending compaction opened."""

from __future__ import annotations

from collections.abc import Iterable

from maintainer.hudi.filemodel import FileSlice
from maintainer.hudi.fsview import FileSystemView


def latest_merged_files(view: FileSystemView, partitions: Iterable[str]) -> dict[str, list[str]]:
    """Partition -> file names (base and log files) of its latest merged slices."""
    result: dict[str, list[str]] = {}
    for partition in partitions:
        names: list[str] = []
        for group in view.file_groups(partition):
            for file_slice in _merged_latest(group.slices_newest_first()):
                names.extend(f.name for f in file_slice.files)
        result[partition] = names
    return result


def _merged_latest(newest_first: list[FileSlice]) -> list[FileSlice]:
    if not newest_first:
        return []
    latest = newest_first[0]
    if latest.base_file is None and len(newest_first) > 1:
        return [newest_first[1], latest]
    return [latest]
