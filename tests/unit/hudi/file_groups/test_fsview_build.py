"""Building the view from column-wise listings: the same view as from FileInfo entries, and
the layout-2 slice placement edge cases the fast path must keep."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given, settings

from maintainer.hudi.file_groups import datafiles, fsview
from maintainer.hudi.file_groups.filemodel import BaseFile, FileGroup, FileSlice, LogFile
from maintainer.hudi.file_groups.fsview import FileSystemView, build_view, rebuild_partitions
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import FileInfo
from maintainer.storage.listing import DirListing, Listings
from tests.unit.hudi.file_groups.test_fsview import FG, T1, T2, T3, P, base, log, slices, v8, v8_tables


def _column_wise(listing: dict[str, list[FileInfo]]) -> Listings:
    return Listings({p: DirListing.from_infos(p, infos) for p, infos in listing.items()})


def _same(a: FileSystemView, b: FileSystemView) -> None:
    assert a.groups == b.groups and a.uncommitted == b.uncommitted and a.partitions == b.partitions


@settings(max_examples=200, deadline=None)
@given(v8_tables())
def test_column_wise_and_file_info_listings_give_the_same_view(
    table: tuple[Timeline, list[FileInfo]],
) -> None:
    timeline, files = table
    listing = {P: files, "q=2": [FileInfo(f"q=2/{f.name}", f.size, f.is_dir) for f in files[::2]]}
    _same(build_view(timeline, _column_wise(listing)), build_view(timeline, listing))


def test_log_completed_before_its_own_instant_joins_the_base_at_that_instant() -> None:
    """A deltacommit whose completion time precedes its instant (a damaged timeline) and a base
    file at that very instant: one slice, as when the log opens a slice at its own instant."""
    timeline = v8(f"{T1}_{T2}.commit", f"{T3}_{T2}.deltacommit")
    v = build_view(timeline, {P: [base(FG, T3), log(FG, T3)]})
    assert slices(v) == [(T3, base(FG, T3).name, [log(FG, T3).name])]


def test_logs_of_one_deltacommit_share_a_slice() -> None:
    timeline = v8(f"{T1}_{T2}.commit", f"{T2}_{T3}.deltacommit")
    logs = [log(FG, T2, version=2), log(FG, T2, token="0-1-0"), log(FG, T2)]
    v = build_view(timeline, _column_wise({P: [base(FG, T1), *logs]}))
    ordered = [log(FG, T2, token="0-1-0").name, log(FG, T2).name, log(FG, T2, version=2).name]
    assert slices(v) == [(T1, base(FG, T1).name, ordered)]


def test_logs_before_every_base_open_their_own_slice() -> None:
    timeline = v8(f"{T1}_{T2}.deltacommit", f"{T3}_{T3}.commit")
    v = build_view(timeline, _column_wise({P: [log(FG, T1), base(FG, T3)]}))
    assert slices(v) == [(T1, None, [log(FG, T1).name]), (T3, base(FG, T3).name, [])]


def _counting_builder(view: FileSystemView) -> list[str]:
    """The partitions the lazily built ``view`` builds from now on, in order."""
    assert isinstance(view.groups, fsview.PartitionViews)
    built: list[str] = []
    build = view.groups._build

    def counted(partition: str) -> fsview.PartitionBuilt:
        built.append(partition)
        return build(partition)

    view.groups._build = counted
    return built


def _many_partitions(count: int) -> dict[str, list[FileInfo]]:
    return {
        f"p={i}": [
            FileInfo(f"p={i}/{base(FG, T1).name}", 1, False),
            FileInfo(f"p={i}/{log(FG, T2).name}", 1, False),
        ]
        for i in range(count)
    }


def test_a_partition_is_built_when_first_read_and_kept_while_the_table_is_small() -> None:
    timeline = v8(f"{T1}_{T2}.commit", f"{T2}_{T3}.deltacommit")
    view = build_view(timeline, _column_wise(_many_partitions(5)))
    built = _counting_builder(view)
    assert view.partitions == [f"p={i}" for i in range(5)] and built == []  # listing order known
    view.file_groups("p=3")
    view.file_groups("p=3")
    assert built == ["p=3"]
    view.all_files()
    assert sorted(built) == sorted({"p=3", *view.partitions})  # each partition once
    _same(view, build_view(timeline, _many_partitions(5)))


def test_a_large_table_view_keeps_about_its_budget_of_files_and_builds_again_what_it_dropped() -> None:
    """Reading every partition of a table larger than the budget holds the budget's worth of
    partitions (the one just read always), never the table; what was dropped is built again,
    equal to what it was."""
    timeline = v8(f"{T1}_{T2}.commit", f"{T2}_{T3}.deltacommit")
    listings = _column_wise(_many_partitions(10))
    views = fsview.PartitionViews(
        listings, fsview._PartitionBuilder.of(timeline, listings, fsview.ViewInputs()), 4
    )
    view = FileSystemView(timeline, views, fsview.ViewInputs(), views.uncommitted())
    built = _counting_builder(view)
    first = view.file_groups("p=0")
    for partition in view.partitions:
        view.file_groups(partition)
        assert views.kept_partitions <= 2  # 2 data files each, budget 4
    assert view.file_groups("p=0") == first and built.count("p=0") == 2
    one_file_budget = fsview.PartitionViews(listings, views._build, 1)
    one_file_budget["p=1"]
    assert one_file_budget.kept_partitions == 1  # the partition just read is kept, over budget


def test_a_rebuilt_view_reads_untouched_partitions_from_the_view_it_came_from() -> None:
    timeline = v8(f"{T1}_{T2}.commit", f"{T2}_{T3}.deltacommit")
    listings = _column_wise(_many_partitions(3))
    view = build_view(timeline, listings)
    kept = view.file_groups("p=2")
    changed = listings.without([f"p=0/{log(FG, T2).name}"])
    rebuilt = rebuild_partitions(view, timeline, changed, view.inputs, ["p=0"])
    built = _counting_builder(view)
    assert rebuilt.file_groups("p=2") == kept and built in ([], ["p=2"])
    assert [f.name for f in rebuilt.all_files() if f.partition == "p=0"] == [base(FG, T1).name]
    assert rebuilt.partitions == view.partitions and set(rebuilt.uncommitted_by_partition) == set(view.groups)


def test_a_listing_read_under_another_partition_name_is_parsed_for_that_name() -> None:
    timeline = v8(f"{T1}_{T2}.commit")
    listing = DirListing.from_infos(P, [base(FG, T1)])
    build_view(timeline, Listings({P: listing}))
    (data_file,) = build_view(timeline, Listings({"other": listing})).all_files()
    assert data_file.partition == "other" and data_file.path == f"other/{base(FG, T1).name}"


def test_the_fast_constructors_set_every_field_as_the_checked_constructors_do() -> None:
    """The view builds its objects through their slots: a field added to a dataclass and not
    to its fast constructor must fail here, not leave objects without it."""
    base_file = datafiles._new_base_file("p", "f_0-1-2_1.parquet", 10, "f", "1")
    assert base_file == BaseFile("p", "f_0-1-2_1.parquet", 10, "f", "1")
    log_file = datafiles._new_log_file("p", ".f_1.log.2_0-1-2", 10, "f", "1", 2, "0-1-2")
    assert log_file == LogFile("p", ".f_1.log.2_0-1-2", 10, "f", "1", 2, "0-1-2")
    file_slice = fsview._new_file_slice("p", "f", "1", base_file, (log_file,))
    assert file_slice == FileSlice("p", "f", "1", base_file, (log_file,))
    group = fsview._new_file_group("p", "f", (file_slice,))
    assert group == FileGroup("p", "f", (file_slice,))
    for cls, setters in (
        (BaseFile, datafiles._BASE_FILE_SETTERS),
        (LogFile, datafiles._LOG_FILE_SETTERS),
        (FileSlice, fsview._SLICE_SETTERS),
        (FileGroup, fsview._GROUP_SETTERS),
    ):
        assert len(setters) == len(fields(cls)), cls.__name__


def test_rebuilding_the_changed_partitions_gives_the_view_a_full_build_gives() -> None:
    before = v8(f"{T1}_{T1}.commit")
    listing = {P: [base(FG, T1)], "q=2": [FileInfo(f"q=2/{base('g2', T1).name}", 5, False)]}
    view = build_view(before, listing)
    after = v8(f"{T1}_{T1}.commit", f"{T2}_{T3}.deltacommit")
    changed = {**listing, P: [base(FG, T1), log(FG, T2)]}
    _same(rebuild_partitions(view, after, changed, view.inputs, [P]), build_view(after, changed))


def test_a_moved_start_of_the_write_timeline_rebuilds_every_partition() -> None:
    before = v8(f"{T1}.commit.requested", f"{T2}_{T2}.commit")
    listing = {P: [base(FG, T2)], "q=2": [FileInfo(f"q=2/{base('g2', T1).name}", 5, False)]}
    view = build_view(before, listing)
    assert view.uncommitted, "written by the pending commit"
    after = v8(f"{T2}_{T2}.commit")  # the pending commit rolled back: the timeline starts later
    rebuilt = rebuild_partitions(view, after, listing, view.inputs, [P])
    _same(rebuilt, build_view(after, listing))
