"""Deleting a clean's files: only data files inside the table; missing files count as deleted."""

from __future__ import annotations

import pickle
import posixpath
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.errors import ApplyError
from maintainer.executors.clean.deletion import (
    PartitionDeletion,
    batch_deletions,
    check_deletion,
    delete_batch,
    delete_partition_files,
    group_by_partition,
    relative_to_table,
    run_deletions,
)
from maintainer.storage import Storage
from maintainer.tasks import IN_PROCESS

BASE = "abc-0_0-1-0_20250101000000000.parquet"
LOG = ".abc-0_20250101000000000.log.1_0-1-0"
Item = TypeVar("Item")
Result = TypeVar("Result")


@pytest.fixture
def table(tmp_path: Path) -> Storage:
    for partition in ("p=1", "p=2"):
        (tmp_path / partition).mkdir()
        (tmp_path / partition / ".hoodie_partition_metadata").write_text("commitTime=1\n")
        (tmp_path / partition / BASE).write_bytes(b"x")
        (tmp_path / partition / LOG).write_bytes(b"y")
    return Storage(str(tmp_path))


@pytest.mark.parametrize(
    ("partition", "name"),
    [
        ("p=1", "hoodie.properties"),
        ("p=1", ".hoodie_partition_metadata"),
        ("p=1", "notes.txt"),
        ("p=1", f"../{BASE}"),
        ("..", BASE),
        ("p=1/../..", BASE),
        ("/etc", BASE),
        (".hoodie", BASE),
        (".hoodie/metadata/files", BASE),
    ],
)
def test_anything_but_a_data_file_inside_a_partition_is_refused(partition: str, name: str) -> None:
    with pytest.raises(ApplyError, match="refusing to delete"):
        check_deletion(PartitionDeletion(partition, (name,)), "plan")


def test_data_files_pass_the_check() -> None:
    check_deletion(PartitionDeletion("a/b=2", (BASE, LOG)), "plan")
    check_deletion(PartitionDeletion("", (BASE,)), "plan")


def test_absolute_paths_of_a_plan_must_be_inside_the_table(table: Storage) -> None:
    assert relative_to_table(table, table.uri(f"p=1/{BASE}"), "plan") == f"p=1/{BASE}"
    assert relative_to_table(table, "file://" + table.full_path(f"p=1/{BASE}"), "plan") == f"p=1/{BASE}"
    with pytest.raises(ApplyError, match="outside the table"):
        relative_to_table(table, "file:/elsewhere/" + BASE, "plan")
    with pytest.raises(ApplyError, match="outside the table"):
        relative_to_table(table, table.uri("") + "-sibling/" + BASE, "plan")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["p=1", "a", ".", "..", "", BASE, "x.y"]), min_size=1, max_size=6))
def test_a_plan_path_is_made_relative_as_normpath_makes_it(parts: list[str]) -> None:
    """The paths that skip ``normpath`` (already normal) come out as ``normpath`` gives them."""
    table = Storage("/tables/t")
    relative = "/".join(parts)
    assert relative_to_table(table, "file:/tables/t/" + relative, "plan") == posixpath.normpath(relative)


def test_files_are_grouped_per_partition_with_emptied_partitions_marked() -> None:
    grouped = group_by_partition([f"p=2/{BASE}", f"p=1/{LOG}", f"p=1/{BASE}", BASE], ["p=2"])
    assert grouped == [
        PartitionDeletion("", (BASE,)),
        PartitionDeletion("p=1", (LOG, BASE)),
        PartitionDeletion("p=2", (BASE,), True),
    ]


def test_an_already_missing_file_counts_as_deleted(table: Storage) -> None:
    result = delete_partition_files(
        table, PartitionDeletion("p=1", (BASE, "gone-0_0-1-0_20250101000000000.parquet"))
    )
    assert result.deleted == (BASE, "gone-0_0-1-0_20250101000000000.parquet") and not result.failed
    assert result.already_gone == ("gone-0_0-1-0_20250101000000000.parquet",)
    assert not table.exists(f"p=1/{BASE}") and table.exists(f"p=1/{LOG}")


def test_an_emptied_partition_goes_with_its_partition_metadata_only(table: Storage) -> None:
    emptied = delete_partition_files(table, PartitionDeletion("p=1", (BASE, LOG), True))
    assert emptied.partition_deleted and not table.exists("p=1")
    not_empty = delete_partition_files(table, PartitionDeletion("p=2", (BASE,), True))
    assert not not_empty.partition_deleted and table.exists(f"p=2/{LOG}")


def test_partitions_are_batched_whole_into_at_most_the_task_count_balanced_by_files() -> None:
    deletions = [
        PartitionDeletion(f"p={i}", tuple(f"f{j}" for j in range(size)))
        for i, size in enumerate([9, 1, 4, 4, 1, 1])
    ]
    batches = batch_deletions(deletions, 3)
    assert len(batches) == 3
    assert sorted(d for batch in batches for d in batch) == sorted(deletions)
    assert sorted(sum(len(d.names) for d in batch) for batch in batches) == [5, 6, 9]
    assert len(batch_deletions(deletions, 100)) == len(deletions)
    assert batch_deletions([], 4) == []


def test_a_batch_deletes_each_of_its_partitions(table: Storage) -> None:
    results = delete_batch(table, [PartitionDeletion("p=1", (BASE,)), PartitionDeletion("p=2", (LOG,))])
    assert [(r.partition, r.deleted) for r in results] == [("p=1", (BASE,)), ("p=2", (LOG,))]
    assert not table.exists(f"p=1/{BASE}") and not table.exists(f"p=2/{LOG}")


class PicklingRunner:
    """Runs in process what a Spark runner would ship: the function, pickled and unpickled."""

    def __init__(self, parallelism: int) -> None:
        self.parallelism = parallelism
        self.batches: list[int] = []

    def run(self, function: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
        self.batches.append(len(items))
        return IN_PROCESS.run(pickle.loads(pickle.dumps(function)), items)


def test_deletions_run_in_batches_of_the_runners_parallelism_with_the_storage_in_the_task(
    table: Storage,
) -> None:
    runner = PicklingRunner(parallelism=2)
    deletions = [PartitionDeletion("p=1", (BASE, LOG)), PartitionDeletion("p=2", (LOG,))]
    results = run_deletions(runner, table, deletions)
    assert runner.batches == [2]
    assert sorted((r.partition, r.deleted) for r in results) == [("p=1", (BASE, LOG)), ("p=2", (LOG,))]
    assert not table.exists(f"p=1/{BASE}") and table.exists(f"p=2/{BASE}")
