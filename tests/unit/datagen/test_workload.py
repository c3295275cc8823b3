"""The generated workload: deterministic, and its expected rows follow inserts, updates, deletes."""

from __future__ import annotations

import pyarrow.compute as pc

from maintainer.datagen.workload import OP_COLUMN, Op, Workload, WorkloadSpec


def ops(work_rows: object) -> dict[int, int]:
    column = work_rows.column(OP_COLUMN).to_pylist()  # type: ignore[attr-defined]
    return {op: column.count(op) for op in (Op.INSERT, Op.UPDATE, Op.DELETE)}


def test_same_seed_gives_the_same_commits() -> None:
    spec = WorkloadSpec(commits=3, rows_per_commit=20, seed=7)
    first = [rows.to_pylist() for _, _, rows in Workload(spec).commits()]
    second = [rows.to_pylist() for _, _, rows in Workload(spec).commits()]
    assert first == second


def test_first_commit_inserts_and_later_commits_update_and_delete() -> None:
    workload = Workload(WorkloadSpec(commits=2, rows_per_commit=100, update_ratio=0.3, delete_ratio=0.1))
    _, ids, rows = workload.next_commit(0)
    assert ops(rows) == {Op.INSERT: 100, Op.UPDATE: 0, Op.DELETE: 0}
    workload.apply(ids, rows)
    assert len(workload.expected_rows()) == 100
    _, ids, rows = workload.next_commit(1)
    assert ops(rows) == {Op.INSERT: 60, Op.UPDATE: 30, Op.DELETE: 10}
    before = {r["uuid"] for r in workload.expected_rows()}
    changed = rows.filter(pc.not_equal(rows.column(OP_COLUMN), int(Op.INSERT))).column("uuid").to_pylist()
    assert set(changed) <= before
    workload.apply(ids, rows)
    assert len(workload.expected_rows()) == 100 - 10 + 60


def test_updates_carry_new_values_and_a_greater_ordering_value() -> None:
    workload = Workload(WorkloadSpec(commits=2, rows_per_commit=50, update_ratio=1.0, delete_ratio=0.0))
    _, ids, rows = workload.next_commit(0)
    workload.apply(ids, rows)
    old = {r["uuid"]: r for r in workload.expected_rows()}
    _, ids, rows = workload.next_commit(1)
    workload.apply(ids, rows)
    new = {r["uuid"]: r for r in workload.expected_rows()}
    assert new.keys() == old.keys()
    assert all(new[k]["ts"] > old[k]["ts"] for k in new)


def test_rows_keep_their_partition_and_file_group_across_updates() -> None:
    workload = Workload(WorkloadSpec(commits=4, rows_per_commit=50, partitions=4, file_groups=3))
    placement: dict[str, tuple[str, int]] = {}
    for work, ids, rows in workload.commits():
        for (partition, group), changes in work.changes.items():
            for key in changes.column("uuid").to_pylist():
                assert placement.setdefault(key, (partition, group)) == (partition, group)
            assert set(changes.column("city").to_pylist()) == {partition}
        workload.apply(ids, rows)


def test_non_partitioned_workload_uses_the_root_partition() -> None:
    work, _, _ = Workload(WorkloadSpec(partitions=0, commits=1)).next_commit(0)
    assert {p for p, _ in work.changes} == {""}


def test_expected_rows_are_sorted_by_key_and_keys_are_unique() -> None:
    workload = Workload(WorkloadSpec(commits=3, rows_per_commit=30))
    for _, ids, rows in workload.commits():
        workload.apply(ids, rows)
    keys = [r["uuid"] for r in workload.expected_rows()]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
