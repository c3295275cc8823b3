"""The file-system view on synthetic timelines and listings: one test per rule."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.hudi.file_groups.datafiles import parse_data_file
from maintainer.hudi.file_groups.filemodel import FileGroup, LogFile
from maintainer.hudi.file_groups.fsview import (
    FileSystemView,
    PendingOperation,
    ViewInputs,
    build_view,
    view_as_of,
)
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import FileInfo

T1, T2, T3, T4, T5, T6 = (f"2024010100000{i}000" for i in range(1, 7))
FG, FG2 = "aaaa-0", "bbbb-0"
P = "p=1"


def base(file_id: str, ts: str, token: str = "0-1-1", partition: str = P) -> FileInfo:
    name = f"{file_id}_{token}_{ts}.parquet"
    return FileInfo(f"{partition}/{name}" if partition else name, 100, False)


def log(file_id: str, ts: str, version: int = 1, token: str = "0-1-1", partition: str = P) -> FileInfo:
    name = f".{file_id}_{ts}.log.{version}_{token}"
    return FileInfo(f"{partition}/{name}" if partition else name, 10, False)


def other(name: str, is_dir: bool = False, partition: str = P) -> FileInfo:
    return FileInfo(f"{partition}/{name}", 0, is_dir)


def v6(*names: str) -> Timeline:
    return Timeline.from_file_names(names, 1)


def v8(*names: str) -> Timeline:
    return Timeline.from_file_names(names, 2, ".hoodie/timeline")


def view(timeline: Timeline, files: Iterable[FileInfo], inputs: ViewInputs | None = None) -> FileSystemView:
    return build_view(timeline, {P: list(files)}, inputs)


def slices(v: FileSystemView, include_replaced: bool = False) -> list[tuple[str, str | None, list[str]]]:
    """(base instant, base file name, log file names) of every slice, oldest first."""
    return [
        (s.base_instant, s.base_file.name if s.base_file else None, [f.name for f in s.log_files])
        for g in v.file_groups(include_replaced=include_replaced)
        for s in g.slices
    ]


def test_v6_slices_by_base_instant() -> None:
    timeline = v6(f"{T1}.deltacommit", f"{T2}.deltacommit", f"{T3}.commit", f"{T4}.deltacommit")
    files = [base(FG, T1), log(FG, T1, 1), log(FG, T1, 2), base(FG, T3), log(FG, T3, 1)]
    v = view(timeline, files)
    assert slices(v) == [
        (T1, base(FG, T1).name, [log(FG, T1, 1).name, log(FG, T1, 2).name]),
        (T3, base(FG, T3).name, [log(FG, T3, 1).name]),
    ]


def test_v8_slices_by_completion_time_after_later_base_instant() -> None:
    # deltacommit T2 started before compaction T3 but completed after it: its log belongs to T3's slice
    timeline = v8(
        f"{T1}_{T1[:-3]}100.commit",
        f"{T3}.compaction.requested",
        f"{T3}_{T3[:-3]}200.commit",
        f"{T2}_{T4}.deltacommit",
    )
    v = view(timeline, [base(FG, T1), base(FG, T3), log(FG, T2)])
    assert slices(v) == [(T1, base(FG, T1).name, []), (T3, base(FG, T3).name, [log(FG, T2).name])]


def test_v8_slices_by_completion_time_before_later_base_instant() -> None:
    timeline = v8(
        f"{T1}_{T1[:-3]}100.commit",
        f"{T2}_{T2[:-3]}500.deltacommit",
        f"{T3}.compaction.requested",
        f"{T3}_{T4}.commit",
    )
    v = view(timeline, [base(FG, T1), base(FG, T3), log(FG, T2)])
    assert slices(v) == [(T1, base(FG, T1).name, [log(FG, T2).name]), (T3, base(FG, T3).name, [])]


def test_v8_log_completed_exactly_at_base_instant_belongs_to_that_slice() -> None:
    timeline = v8(f"{T1}_{T1[:-3]}100.commit", f"{T2}_{T3}.deltacommit", f"{T3}_{T4}.commit")
    v = view(timeline, [base(FG, T1), base(FG, T3), log(FG, T2)])
    assert slices(v) == [(T1, base(FG, T1).name, []), (T3, base(FG, T3).name, [log(FG, T2).name])]


def test_v8_log_completed_before_every_base_opens_its_own_slice() -> None:
    # logs written before the group's first base file (log-only group later compacted)
    timeline = v8(f"{T1}_{T1[:-3]}500.deltacommit", f"{T2}_{T2[:-3]}500.deltacommit", f"{T3}_{T4}.commit")
    v = view(timeline, [log(FG, T1), log(FG, T2), base(FG, T3)])
    assert slices(v) == [(T1, None, [log(FG, T1).name, log(FG, T2).name]), (T3, base(FG, T3).name, [])]


def test_v8_log_only_file_group_is_one_slice() -> None:
    timeline = v8(f"{T1}_{T1[:-3]}500.deltacommit", f"{T2}_{T2[:-3]}500.deltacommit")
    v = view(timeline, [log(FG, T2), log(FG, T1)])
    assert slices(v) == [(T1, None, [log(FG, T1).name, log(FG, T2).name])]


def test_uncommitted_files_hidden() -> None:
    timeline = v6(f"{T1}.commit", f"{T2}.commit.requested", f"{T3}.inflight")
    pending_base, inflight_base, absent_base = base(FG, T2), base(FG2, T3), base(FG, T4)
    v = view(timeline, [base(FG, T1), pending_base, inflight_base, absent_base])
    assert slices(v) == [(T1, base(FG, T1).name, [])]
    assert sorted(f.name for f in v.uncommitted) == sorted(
        f.name for f in (pending_base, inflight_base, absent_base)
    )


def test_uncommitted_v8_log_files_hidden() -> None:
    timeline = v8(f"{T1}_{T1[:-3]}100.commit", f"{T2}.deltacommit.inflight", f"{T3}.deltacommit.requested")
    v = view(timeline, [base(FG, T1), log(FG, T2), log(FG, T3), log(FG, T4)])
    assert slices(v) == [(T1, base(FG, T1).name, [])]
    assert len(v.uncommitted) == 3


def test_before_the_start_of_the_active_timeline_counts_as_committed() -> None:
    # T1 and T2 were archived: their files are committed; T5 has no instant at all: not
    # committed. With no archived timeline to give T2's completion time, its log joins the
    # latest slice (HoodieFileGroup.getBaseInstantTime: no completion time -> latest slice)
    timeline = v8(f"{T3}_{T3[:-3]}100.commit", f"{T4}_{T4[:-3]}100.deltacommit")
    v = view(timeline, [base(FG, T1), log(FG, T2), base(FG, T3), log(FG, T4), base(FG, T5)])
    assert slices(v) == [
        (T1, base(FG, T1).name, []),
        (T3, base(FG, T3).name, [log(FG, T2).name, log(FG, T4).name]),
    ]
    assert [f.name for f in v.uncommitted] == [base(FG, T5).name]


def test_before_the_start_of_the_active_timeline_ignores_older_cleans_and_rollbacks() -> None:
    # clean T1 and rollback T2 survived archival; the commit T3 that wrote FG's latest base
    # file was archived; the active write timeline starts at T4
    timeline = v6(f"{T1}.clean", f"{T2}.rollback", f"{T4}.commit")
    v = view(timeline, [base(FG, T3), base(FG2, T4)])
    assert [(s.file_id, s.base_instant) for s in v.latest_slices()] == [(FG, T3), (FG2, T4)]
    assert v.uncommitted == ()


def test_pending_compaction_opens_a_new_slice_v6() -> None:
    # v6: after compaction T2 was scheduled, new log files are named by T2 (no base file yet)
    timeline = v6(f"{T1}.deltacommit", f"{T2}.compaction.requested", f"{T3}.deltacommit")
    files = [base(FG, T1), log(FG, T1), log(FG, T2), base(FG, T2, "9-9-9")]  # base of T2 is pending output
    inputs = ViewInputs(pending_compaction={(P, FG): PendingOperation(T2, "compaction", T1)})
    v = view(timeline, files, inputs)
    assert slices(v) == [(T1, base(FG, T1).name, [log(FG, T1).name]), (T2, None, [log(FG, T2).name])]
    assert [f.name for f in v.uncommitted] == [base(FG, T2, "9-9-9").name]
    # without the decoded plan the log file is still visible and still forms the T2 slice
    assert slices(view(timeline, files)) == slices(v)


def test_pending_compaction_opens_a_new_slice_v8() -> None:
    timeline = v8(
        f"{T1}_{T1[:-3]}100.deltacommit", f"{T2}_{T2[:-3]}100.deltacommit", f"{T3}.compaction.requested"
    )
    inputs = ViewInputs(pending_compaction={(P, FG): PendingOperation(T3, "compaction", T1)})
    v = view(timeline, [base(FG, T1), log(FG, T2)], inputs)
    assert slices(v) == [(T1, base(FG, T1).name, [log(FG, T2).name]), (T3, None, [])]
    latest = v.latest_slices()[0]
    assert latest.base_instant == T3 and latest.is_empty


def test_v8_log_completed_after_pending_compaction_joins_its_slice() -> None:
    timeline = v8(f"{T1}_{T1[:-3]}100.deltacommit", f"{T2}.compaction.requested", f"{T3}_{T4}.deltacommit")
    inputs = ViewInputs(pending_compaction={(P, FG): PendingOperation(T2, "compaction", T1)})
    v = view(timeline, [base(FG, T1), log(FG, T3)], inputs)
    assert slices(v) == [(T1, base(FG, T1).name, []), (T2, None, [log(FG, T3).name])]


def test_replaced_file_groups_excluded_from_latest_view() -> None:
    timeline = v6(f"{T1}.commit", f"{T2}.replacecommit")
    inputs = ViewInputs(replaced_file_groups={(P, FG): T2})
    v = view(timeline, [base(FG, T1), base(FG2, T2)], inputs)
    assert [s.file_id for s in v.latest_slices()] == [FG2]
    assert [g.file_id for g in v.file_groups(include_replaced=True)] == [FG, FG2]
    assert {f.name for f in v.all_files()} == {base(FG, T1).name, base(FG2, T2).name}
    assert v.is_replaced(v.file_groups(include_replaced=True)[0])


def test_view_as_of_an_instant() -> None:
    timeline = v6(f"{T1}.commit", f"{T2}.commit", f"{T3}.replacecommit", f"{T4}.commit")
    listing = {P: [base(FG, T1), base(FG, T2), base(FG2, T3), base(FG2, T4)]}
    inputs = ViewInputs(replaced_file_groups={(P, FG): T3})
    latest = build_view(timeline, listing, inputs)
    assert [(s.file_id, s.base_instant) for s in latest.latest_slices()] == [(FG2, T4)]
    as_of_t2 = view_as_of(latest, listing, T2)
    # later files hidden, and the replacement at T3 (after T2) is not applied
    assert [(s.file_id, s.base_instant) for s in as_of_t2.latest_slices()] == [(FG, T2)]
    as_of_t3 = view_as_of(latest, listing, T3)
    assert [(s.file_id, s.base_instant) for s in as_of_t3.latest_slices()] == [(FG2, T3)]


def test_v8_view_as_of_uses_requested_times() -> None:
    timeline = v8(
        f"{T1}_{T1[:-3]}100.deltacommit", f"{T2}_{T5}.deltacommit", f"{T3}_{T3[:-3]}100.deltacommit"
    )
    listing = {P: [base(FG, T1), log(FG, T2), log(FG, T3)]}
    as_of = view_as_of(build_view(timeline, listing), listing, T2)
    assert slices(as_of) == [(T1, base(FG, T1).name, [log(FG, T2).name])]


def test_junk_files_ignored() -> None:
    timeline = v6(f"{T1}.commit")
    junk = [
        other(".DS_Store"),
        other(f".{FG}_0-1-1_{T1}.parquet.crc"),
        other(f"._{FG}_0-1-1_{T1}.parquet"),
        other("__MACOSX", is_dir=True),
        other("_SUCCESS"),
        other("notes.txt"),
        other("subdir", is_dir=True),
    ]
    v = view(timeline, [base(FG, T1), *junk])
    assert slices(v) == [(T1, base(FG, T1).name, [])]
    assert v.uncommitted == ()
    assert all(parse_data_file(P, j) is None for j in junk)


def test_partition_metadata_files_ignored() -> None:
    timeline = v6(f"{T1}.commit")
    meta = [other(".hoodie_partition_metadata"), other(".hoodie_partition_metadata.parquet")]
    v = view(timeline, [*meta, base(FG, T1)])
    assert [f.name for f in v.all_files()] == [base(FG, T1).name]
    assert v.uncommitted == ()


def test_log_files_ordered_by_instant_version_token() -> None:
    timeline = v6(f"{T1}.deltacommit", f"{T2}.deltacommit")
    logs = [
        log(FG, T1, 2, "0-1-1"),
        log(FG, T1, 10, "0-1-1"),
        log(FG, T1, 1, "1-0-1"),
        log(FG, T1, 1, "0-5-9"),
    ]
    v = view(timeline, [*logs, base(FG, T1)])
    (only,) = v.latest_slices()
    assert [f.name for f in only.log_files] == [
        log(FG, T1, 1, "0-5-9").name,
        log(FG, T1, 1, "1-0-1").name,
        log(FG, T1, 2, "0-1-1").name,
        log(FG, T1, 10, "0-1-1").name,
    ]
    v8_timeline = v8(
        f"{T1}_{T1[:-3]}100.commit", f"{T3}_{T3[:-3]}100.deltacommit", f"{T2}_{T2[:-3]}100.deltacommit"
    )
    v8_view = view(v8_timeline, [log(FG, T3), log(FG, T2, 2), base(FG, T1), log(FG, T2, 1)])
    assert [f.name for f in v8_view.latest_slices()[0].log_files] == [
        log(FG, T2, 1).name,
        log(FG, T2, 2).name,
        log(FG, T3).name,
    ]


def test_completed_commit_with_compaction_requested_is_a_compaction() -> None:
    # the compacted base file at T2 is committed: the completed commit is the compaction's
    timeline = v8(
        f"{T1}_{T1[:-3]}100.deltacommit",
        f"{T2}.compaction.requested",
        f"{T2}.compaction.inflight",
        f"{T2}_{T3}.commit",
    )
    assert timeline.pending_compactions() == []
    v = view(timeline, [base(FG, T1), base(FG, T2)])
    assert [s.base_instant for s in v.file_groups()[0].slices] == [T1, T2]


def test_savepoint_at_the_same_time_as_a_commit_is_a_separate_instant() -> None:
    timeline = v6(f"{T1}.commit", f"{T1}.savepoint", f"{T2}.commit")
    assert len(timeline) == 3
    v = view(timeline, [base(FG, T1), base(FG, T2)])
    assert [s.base_instant for s in v.file_groups()[0].slices] == [T1, T2]


def test_layout2_completed_file_without_completion_time_is_a_corrupt_file_error() -> None:
    import pytest

    from maintainer.errors import CorruptFileError

    with pytest.raises(CorruptFileError):
        v8(f"{T1}.commit")


def test_non_partitioned_table_paths() -> None:
    timeline = v6(f"{T1}.commit")
    v = build_view(timeline, {"": [base(FG, T1, partition="")]})
    (data_file,) = v.all_files()
    assert data_file.partition == "" and data_file.path == base(FG, T1).name.split("/")[-1]


def test_file_groups_per_partition_and_sizes() -> None:
    timeline = v6(f"{T1}.deltacommit")
    listing = {
        "a": [base(FG, T1, partition="a"), log(FG, T1, partition="a")],
        "b": [base(FG2, T1, partition="b")],
    }
    v = build_view(timeline, listing)
    assert v.partitions == ["a", "b"]
    assert [g.file_id for g in v.file_groups("a")] == [FG]
    (slice_a,) = v.latest_slices("a")
    assert slice_a.total_size == 110 and [f.path for f in slice_a.files] == [
        f"a/{FG}_0-1-1_{T1}.parquet",
        f"a/.{FG}_{T1}.log.1_0-1-1",
    ]
    group = v.file_groups("a")[0]
    assert group.latest_slice is slice_a and group.slices_newest_first() == [slice_a]


# -- properties of the view on random layout-2 tables ---------------------------------------

TIMES = [f"20240101000{i:03d}000" for i in range(1, 40)]


@st.composite
def v8_tables(draw: st.DrawFn) -> tuple[Timeline, list[FileInfo]]:
    """Instants at distinct times, each completed (with a later completion time) or pending;
    base and log files of a few file groups written at some of those times or at none."""
    count = draw(st.integers(1, 8))
    starts = sorted(draw(st.lists(st.sampled_from(TIMES[:30]), min_size=count, max_size=count, unique=True)))
    names = []
    for ts in starts:
        if draw(st.booleans()):
            done = draw(st.sampled_from([t for t in TIMES if t > ts]))
            action = draw(st.sampled_from(["commit", "deltacommit"]))
            names.append(f"{ts}_{done}.{action}")
        else:
            names.append(f"{ts}.deltacommit.inflight")
    written = [*starts, draw(st.sampled_from(TIMES))]
    files = []
    for file_id in ("g1-0", "g2-0"):
        for ts in draw(st.lists(st.sampled_from(written), max_size=4, unique=True)):
            files.append(base(file_id, ts))
        for ts in draw(st.lists(st.sampled_from(written), max_size=5, unique=True)):
            files.append(log(file_id, ts))
    return Timeline.from_file_names(names, 2, ".hoodie/timeline"), files


@settings(max_examples=300, deadline=None)
@given(v8_tables())
def test_v8_view_invariants(table: tuple[Timeline, list[FileInfo]]) -> None:
    timeline, files = table
    v = view(timeline, files)
    completions = timeline.completion_times()
    start = timeline.write_timeline_start()

    def committed(ts: str) -> bool:
        return ts in completions or (start is not None and ts < start)

    placed = sorted(f.name for g in v.file_groups() for s in g.slices for f in s.files)
    parsed = [d for d in (parse_data_file(P, f) for f in files) if d is not None]
    assert placed == sorted(d.name for d in parsed if committed(d.instant_time))
    assert sorted(f.name for f in v.uncommitted) == sorted(
        d.name for d in parsed if not committed(d.instant_time)
    )
    for group in v.file_groups():
        instants = [s.base_instant for s in group.slices]
        assert instants == sorted(set(instants))
        for file_slice in group.slices:
            if file_slice.base_file is not None:
                assert file_slice.base_file.instant_time == file_slice.base_instant
            for log_file in file_slice.log_files:
                assert file_slice.base_instant == expected_slice(group, log_file, completions)


def expected_slice(group: FileGroup, log_file: LogFile, completions: dict[str, str]) -> str:
    """HoodieFileGroup.getBaseInstantTime over the group's final slices: by completion time, or
    (archived, with no archived timeline here) the latest slice when the log was added: a base
    instant, or a slice an earlier log opened (at its own, earlier instant)."""
    instants = [s.base_instant for s in group.slices]
    completion = completions.get(log_file.instant_time)
    if completion is None:
        bases = {s.base_instant for s in group.slices if s.base_file is not None}
        return max(b for b in instants if b in bases or b <= log_file.instant_time)
    at_or_before = [b for b in instants if b <= completion]
    return at_or_before[-1] if at_or_before else log_file.instant_time


def test_the_pending_operation_of_a_file_group_is_its_compaction_then_log_compaction_then_clustering() -> (
    None
):
    compaction = PendingOperation("30", "compaction", "10")
    log_compaction = PendingOperation("31", "logcompaction", "10")
    clustering = PendingOperation("32", "replacecommit", "10")
    key, other = ("p", "fg-1"), ("p", "fg-2")
    inputs = ViewInputs(
        pending_compaction={key: compaction},
        pending_log_compaction={key: log_compaction, other: log_compaction},
        pending_clustering={key: clustering, other: clustering, ("q", "fg-3"): clustering},
    )
    assert inputs.pending_operation(key) is compaction
    assert inputs.pending_operation(other) is log_compaction
    assert inputs.pending_operation(("q", "fg-3")) is clustering
    assert inputs.pending_operation(("q", "fg-4")) is None
