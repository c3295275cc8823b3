"""Candidates and groups as Hudi's size-based strategy builds them, on synthetic states."""

from __future__ import annotations

from maintainer.artifact.model import ClusterSlice, SliceFile
from maintainer.hudi.file_groups.fsview import PendingOperation, ViewInputs
from maintainer.services.clustering.grouping import build_groups, group_metrics, partition_candidates
from maintainer.services.clustering.settings import ClusteringSpec

from .states import MB, base, commits, inputs, log, ts

SPEC = ClusteringSpec(max_commits=0)


def piece(file_id: str, size: int | None, logs: tuple[int, ...] = ()) -> ClusterSlice:
    return ClusterSlice(
        file_id=file_id,
        base_instant=ts(1),
        base_file=SliceFile(name=base(file_id, 1), size=size) if size is not None else None,
        log_files=tuple(SliceFile(name=log(file_id, 2, v + 1), size=s) for v, s in enumerate(logs)),
    )


def ids(groups: object) -> list[list[str]]:
    return [[s.file_id for s in g.slices] for g in groups]  # type: ignore[attr-defined]


def test_slices_are_grouped_largest_first_and_ties_keep_listing_order() -> None:
    slices = [piece("a", 1 * MB), piece("b", 3 * MB), piece("c", 1 * MB), piece("d", 2 * MB)]
    (group,) = build_groups("p", slices, SPEC).groups
    assert [s.file_id for s in group.slices] == ["b", "d", "a", "c"]
    assert group.num_output_file_groups == 1 and group.partition == "p"
    assert "4 file slices under the 300.0 MiB small-file limit, 7.0 MiB, into 1 file group" in group.reason


def test_a_group_closes_before_the_slice_that_would_pass_max_bytes() -> None:
    spec = ClusteringSpec(max_bytes_per_group=10 * MB, target_file_max_bytes=4 * MB)
    exact = build_groups("p", [piece("a", 6 * MB), piece("b", 4 * MB), piece("c", 1 * MB)], spec)
    assert ids(exact.groups) == [["a", "b"], ["c"]]  # 6 + 4 = 10 MB: exactly max_bytes stays in
    assert [g.num_output_file_groups for g in exact.groups] == [3, 1]  # ceil(10 / 4), ceil(1 / 4)
    over = build_groups("p", [piece("a", 6 * MB), piece("b", 4 * MB + 1)], spec)
    assert ids(over.groups) == [["a"], ["b"]]


def test_max_num_groups_stops_the_walk() -> None:
    spec = ClusteringSpec(max_bytes_per_group=5 * MB, max_num_groups=2)
    built = build_groups("p", [piece(f, 4 * MB) for f in "abcd"], spec)
    assert ids(built.groups) == [["a"], ["b"]]
    assert [s.file_id for s in built.capped] == ["c", "d"]


def test_a_single_last_slice_is_rewritten_alone_only_with_single_group_or_sort_columns() -> None:
    spec = ClusteringSpec(max_bytes_per_group=5 * MB, single_group_clustering=False)
    built = build_groups("p", [piece("a", 4 * MB), piece("b", 3 * MB)], spec)
    assert ids(built.groups) == [["a"]]  # closed early: kept even with one slice
    assert built.dropped_single is not None and built.dropped_single.file_id == "b"
    sorted_spec = ClusteringSpec(
        max_bytes_per_group=5 * MB, single_group_clustering=False, sort_columns=("x",)
    )
    assert ids(build_groups("p", [piece("a", 4 * MB), piece("b", 3 * MB)], sorted_spec).groups) == [
        ["a"],
        ["b"],
    ]
    assert ids(build_groups("p", [piece("a", MB)], SPEC).groups) == [["a"]]


def test_a_log_only_slice_counts_as_parquet_max_file_size() -> None:
    spec = ClusteringSpec(parquet_max_file_size=50 * MB)
    (group,) = build_groups("p", [piece("a", 10 * MB), piece("b", None, (3 * MB,))], spec).groups
    assert [s.file_id for s in group.slices] == ["b", "a"]
    assert group.metrics == {
        "TOTAL_LOG_FILES": 1.0, "TOTAL_IO_MB": 73.0, "TOTAL_IO_READ_MB": 13.0,
        "TOTAL_LOG_FILES_SIZE": float(3 * MB), "TOTAL_IO_WRITE_MB": 60.0,
    }  # fmt: skip
    assert "1 slice of log files only" in group.reason


def test_metrics_are_whole_mb_of_the_group_totals() -> None:
    metrics = group_metrics([piece(f, 400_000) for f in "abcd"], SPEC)  # 1.6 MB in all, 0.38 MB each
    assert (metrics["TOTAL_IO_READ_MB"], metrics["TOTAL_IO_WRITE_MB"], metrics["TOTAL_IO_MB"]) == (
        1.0,
        1.0,
        2.0,
    )
    assert list(metrics) == [
        "TOTAL_LOG_FILES", "TOTAL_IO_MB", "TOTAL_IO_READ_MB", "TOTAL_LOG_FILES_SIZE", "TOTAL_IO_WRITE_MB"
    ]  # fmt: skip


def _partition(view_inputs: ViewInputs | None = None, table_type: str = "cow"):  # type: ignore[no-untyped-def]
    files = {
        "p": [
            (base("a", 1), 300 * 1024 * 1024 - 1),
            (base("b", 1), 300 * 1024 * 1024),
            (base("c", 1), MB),
            (base("d", 1), MB),
            (log("e", 2), MB),
        ]
    }
    action = "deltacommit" if table_type == "mor" else "commit"
    return inputs(commits(1, 2, action=action), files, view_inputs=view_inputs, table_type=table_type)


def test_candidates_are_latest_slices_under_the_limit_strictly() -> None:
    state = _partition(table_type="mor")
    found = partition_candidates(state.view, "p", SPEC, custom_merge=False)
    assert [s.file_id for s in found.slices] == ["a", "c", "d", "e"]
    assert found.large == 1 and not found.left_out
    log_only = found.slices[-1]
    assert log_only.base_file is None and [f.name for f in log_only.log_files] == [log("e", 2)]


def test_file_groups_under_pending_services_or_replaced_are_not_candidates() -> None:
    view_inputs = ViewInputs(
        replaced_file_groups={("p", "a"): ts(3)},
        pending_compaction={("p", "c"): PendingOperation(ts(4), "compaction", ts(1))},
        pending_clustering={("p", "d"): PendingOperation(ts(5), "clustering", ts(1))},
        pending_log_compaction={("p", "e"): PendingOperation(ts(6), "logcompaction", ts(2))},
    )
    found = partition_candidates(_partition(view_inputs).view, "p", SPEC, custom_merge=False)
    assert found.slices == ()
    reasons = {s.file_id: s.reason for s in found.left_out}
    assert reasons == {
        "c": f"file group is in the pending compaction {ts(4)}",
        "d": f"file group is in the pending clustering {ts(5)}",
        "e": f"file group is in the pending logcompaction {ts(6)}",
    }


def test_log_files_of_a_custom_merge_table_are_left_out() -> None:
    found = partition_candidates(_partition(table_type="mor").view, "p", SPEC, custom_merge=True)
    assert [s.file_id for s in found.slices] == ["a", "c", "d"]
    assert "merge mode CUSTOM" in found.left_out[0].reason
