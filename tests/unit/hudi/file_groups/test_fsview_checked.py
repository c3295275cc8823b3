"""The fast builder makes what the checked constructors accept: every file group and slice of
views built on random tables of both layouts (pending compactions, concurrent log writers,
partitions), rebuilt through ``FileGroup``, ``FileSlice``, ``BaseFile`` and ``LogFile``, passes
their checks and is equal to what was built."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.hudi.file_groups.filemodel import FileGroup, FileSlice
from maintainer.hudi.file_groups.fsview import PendingOperation, ViewInputs, build_view
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import FileInfo
from maintainer.storage.listing import DirListing, Listings
from tests.unit.hudi.file_groups.test_fsview import TIMES

FILE_IDS = ("g1-0", "g2-0")
PARTITIONS = ("p=1", "q=2")
TOKENS = ("0-1-1", "1-0-1", "0-2-10", None)
Table = tuple[Timeline, dict[str, list[FileInfo]], ViewInputs]


def _instant_names(draw: st.DrawFn, layout: int, starts: list[str]) -> list[str]:
    names = []
    for ts in starts:
        kind = draw(st.sampled_from(["commit", "deltacommit", "inflight", "compaction"]))
        if kind == "inflight":
            names.append(f"{ts}.deltacommit.inflight")
        elif kind == "compaction":
            names.append(f"{ts}.compaction.requested")
        elif layout == 2:
            names.append(f"{ts}_{draw(st.sampled_from([t for t in TIMES if t > ts]))}.{kind}")
        else:
            names.append(f"{ts}.{kind}")
    return names


def _files(draw: st.DrawFn, partition: str, written: list[str]) -> list[FileInfo]:
    files = []
    for file_id in FILE_IDS:
        for ts, token in draw(st.lists(st.tuples(st.sampled_from(written), st.sampled_from(TOKENS[:3])),
                                       max_size=4, unique=True)):  # fmt: skip
            files.append(FileInfo(f"{partition}/{file_id}_{token}_{ts}.parquet", 100, False))
        logs = st.tuples(st.sampled_from(written), st.integers(1, 3), st.sampled_from(TOKENS))
        for ts, version, log_token in draw(st.lists(logs, max_size=6, unique=True)):
            suffix = f"_{log_token}" if log_token else ""
            files.append(FileInfo(f"{partition}/.{file_id}_{ts}.log.{version}{suffix}", 10, False))
    return files


@st.composite
def tables(draw: st.DrawFn) -> Table:
    """Instants completed, pending or requested compactions (which hold their file groups),
    and the base and log files of two file groups in two partitions, written at those times or
    at another; log files of one instant by concurrent writers (versions, tokens, none)."""
    layout = draw(st.sampled_from([1, 2]))
    count = draw(st.integers(1, 8))
    starts = sorted(draw(st.lists(st.sampled_from(TIMES[:30]), min_size=count, max_size=count, unique=True)))
    names = _instant_names(draw, layout, starts)
    timeline = Timeline.from_file_names(names, layout, ".hoodie/timeline" if layout == 2 else ".hoodie")
    written = [*starts, draw(st.sampled_from(TIMES))]
    listing = {p: _files(draw, p, written) for p in PARTITIONS}
    compactions = [n.split(".")[0] for n in names if n.endswith(".compaction.requested")]
    held = zip(PARTITIONS, compactions, strict=False)  # a compaction holds a group per partition
    pending = {(p, FILE_IDS[0]): PendingOperation(ts, "compaction") for p, ts in held}
    return timeline, listing, ViewInputs(pending_compaction=pending)


def _checked(group: FileGroup) -> FileGroup:
    """The group rebuilt through the checked constructors, from its files up."""
    slices = tuple(
        FileSlice(
            s.partition,
            s.file_id,
            s.base_instant,
            None if s.base_file is None else replace(s.base_file),
            tuple(replace(f) for f in s.log_files),
        )
        for s in group.slices
    )
    return FileGroup(group.partition, group.file_id, slices)


@settings(max_examples=400, deadline=None)
@given(tables())
def test_every_built_slice_and_group_passes_the_checked_constructors(table: Table) -> None:
    timeline, listing, inputs = table
    column_wise = Listings({p: DirListing.from_infos(p, infos) for p, infos in listing.items()})
    for view in (build_view(timeline, listing, inputs), build_view(timeline, column_wise, inputs)):
        for group in view.file_groups(include_replaced=True):
            assert _checked(group) == group
