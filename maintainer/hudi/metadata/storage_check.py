"""The metadata table's own files against its own timeline: every file of a file group's latest
slice that a completed metadata commit wrote is on storage, at least at the size it was
committed with (a base HFile at exactly that size).

A deleted or cut log file of the metadata table is read by Hudi as "no such records": a record
index that misses keys, column statistics that describe nothing. The metadata table is read
with ``verify=False`` (a damaged one is shown as it is), so this is where it is judged. The
sizes are those of :mod:`maintainer.hudi.file_groups.integrity` applied to the metadata table's timeline
and listing; files of earlier slices (a clean may have deleted them) are not expected.
"""

from __future__ import annotations

from collections.abc import Mapping

from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName
from maintainer.hudi.file_groups.integrity import CommittedSize, Finding, inspect_table
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.table.snapshot import METADATA_TABLE_DIR

_HINT = (
    "the metadata table is damaged: set `metadata_table: drop` for this table (the next Hudi writer "
    "rebuilds it), or restore the file from a backup"
)


def metadata_file_findings(mdt: MetadataTable) -> list[Finding]:
    """Files of the metadata table missing, cut short, or with an undecodable instant file;
    paths relative to the data table's base path."""
    inspection = inspect_table(mdt.storage, mdt.state.snapshot)
    partitions = {p.name for p in mdt.partitions}
    expected = latest_slice_files(
        {path: item for path, item in inspection.committed.items() if path.split("/")[0] in partitions}
    )
    findings = [_relative(f) for f in inspection.findings]
    listings = mdt.state.snapshot.listings
    names = {p: {entry.name for entry in listings[p]} for p in partitions & set(listings)}
    findings += [
        _missing(item)
        for path, item in sorted(expected.items())
        if path.rpartition("/")[2] not in names.get(path.rpartition("/")[0], set())
    ]
    return findings


def latest_slice_files(committed: Mapping[str, CommittedSize]) -> dict[str, CommittedSize]:
    """The committed files of each file group's latest slice: its newest committed base file
    and the log files committed after it (no base file committed on the active timeline: all
    its log files)."""
    newest_base: dict[tuple[str, str], str] = {}
    for path in committed:
        group, base = _file_group(path)
        if group is not None and base is not None and base >= newest_base.get(group, ""):
            newest_base[group] = base
    latest: dict[str, CommittedSize] = {}
    for path, item in committed.items():
        group, base = _file_group(path)
        if group is None:
            continue
        since = newest_base.get(group, "")
        if (base is not None and base == since) or (base is None and item.instant >= since):
            latest[path] = item
    return latest


def _file_group(path: str) -> tuple[tuple[str, str] | None, str | None]:
    """(partition, file id) of a metadata file, and its instant when it is a base file."""
    partition, _, name = path.rpartition("/")
    base = BaseFileName.parse(name)
    if base is not None:
        return (partition, base.file_id), base.instant_time
    log = LogFileName.parse(name)
    return ((partition, log.file_id), None) if log is not None else (None, None)


def _missing(item: CommittedSize) -> Finding:
    kind = "log file" if item.is_log else "base file"
    return Finding(
        f"{METADATA_TABLE_DIR}/{item.path}",
        f"metadata table {kind} is not on storage, but metadata instant {item.instant} "
        f"committed it ({item.size} bytes); its records are lost to every reader",
        _HINT,
    )


def _relative(finding: Finding) -> Finding:
    return Finding(f"{METADATA_TABLE_DIR}/{finding.path}", f"metadata table {finding.problem}", _HINT)
