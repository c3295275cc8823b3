"""The generated workload: deterministic, and its expected rows follow inserts, updates, deletes."""

from __future__ import annotations

from maintainer.datagen.workload import Workload, WorkloadSpec


def test_same_seed_gives_the_same_commits() -> None:
    spec = WorkloadSpec(commits=3, rows_per_commit=20, seed=7)
    first = [c.changes for c in Workload(spec).commits()]
    second = [c.changes for c in Workload(spec).commits()]
    assert first == second


def test_first_commit_inserts_and_later_commits_update_and_delete() -> None:
    spec = WorkloadSpec(commits=2, rows_per_commit=100, update_ratio=0.3, delete_ratio=0.1)
    workload = Workload(spec)
    first = workload.next_commit(0)
    workload.apply(first)
    assert first.row_count == 100 and len(workload.live) == 100
    second = workload.next_commit(1)
    changes = [c for cs in second.changes.values() for c in cs]
    deletes = [c for c in changes if c.row is None]
    updates = [c for c in changes if c.row is not None and c.key in workload.live]
    assert len(deletes) == 10 and len(updates) == 30
    workload.apply(second)
    assert len(workload.live) == 100 - 10 + 60


def test_rows_keep_their_partition_and_file_group_across_updates() -> None:
    workload = Workload(WorkloadSpec(commits=4, rows_per_commit=50, partitions=4, file_groups=3))
    placement: dict[str, tuple[str, int]] = {}
    for commit in workload.commits():
        for (partition, group), changes in commit.changes.items():
            for change in changes:
                assert placement.setdefault(change.key, (partition, group)) == (partition, group)
        workload.apply(commit)


def test_non_partitioned_workload_uses_the_root_partition() -> None:
    workload = Workload(WorkloadSpec(partitions=0, commits=1))
    commit = workload.next_commit(0)
    assert {p for p, _ in commit.changes} == {""}


def test_expected_rows_are_sorted_by_key() -> None:
    workload = Workload(WorkloadSpec(commits=2, rows_per_commit=30))
    for commit in workload.commits():
        workload.apply(commit)
    keys = [r["uuid"] for r in workload.expected_rows()]
    assert keys == sorted(keys)
