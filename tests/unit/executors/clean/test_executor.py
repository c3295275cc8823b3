"""A clean instant's deletions from its plan, and the HoodieCleanMetadata it completes with."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.errors import ApplyError
from maintainer.executors.clean.deletion import PartitionDeleted, PartitionDeletion
from maintainer.executors.clean.executor import clean_metadata, keep_only, plan_deletions
from maintainer.hudi.payloads import ActionInstant, CleanerPlan, CleanFileInfo, FilesOfPaths
from maintainer.storage import Storage

A = "a-0_0-1-0_20250101000000000.parquet"
B = "b-0_0-1-0_20250101000000000.parquet"
LOG = ".a-0_20250101000000000.log.1_0-1-0"


def test_v2_absolute_paths_and_v1_names_both_become_checked_partition_deletions(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path))
    plan = CleanerPlan(
        policy="KEEP_LATEST_COMMITS",
        file_paths_to_be_deleted_per_partition={
            "p=1": (
                CleanFileInfo(file_path=storage.uri(f"p=1/{A}")),
                CleanFileInfo(file_path=storage.uri(f"p=1/{LOG}")),
            )
        },
        files_to_be_deleted_per_partition={"p=2": (B,)},
        partitions_to_be_deleted=("p=2",),
    )
    assert plan_deletions(storage, plan, "plan") == [
        PartitionDeletion("p=1", (LOG, A)),
        PartitionDeletion("p=2", (B,), True),
    ]


@pytest.mark.parametrize(
    "info",
    [
        CleanFileInfo(file_path="file:/elsewhere/p=1/" + A),
        CleanFileInfo(file_path=None),
        CleanFileInfo(file_path="BOOT", is_bootstrap_base_file=True),
    ],
)
def test_plans_reaching_outside_the_table_or_with_bootstrap_files_are_refused(
    tmp_path: Path, info: CleanFileInfo
) -> None:
    storage = Storage(str(tmp_path))
    if info.file_path == "BOOT":
        info = CleanFileInfo(file_path=storage.uri(f"p=1/{A}"), is_bootstrap_base_file=True)
    plan = CleanerPlan(policy="KEEP_LATEST_COMMITS", file_paths_to_be_deleted_per_partition={"p=1": (info,)})
    with pytest.raises(ApplyError):
        plan_deletions(storage, plan, "plan")


@pytest.mark.parametrize(
    ("base", "paths", "refusal"),
    [
        ("", {"p=1": [f"p=1/{A}", f"p=1/{LOG}"], "": [B]}, None),  # "": the table's own URI
        ("", {"p=1": [f"p=1/../p=2/{A}"]}, None),  # normalised, as the object's URI is
        ("", {"p=1": [f"p=1/../../elsewhere/{A}"]}, "not a partition of the table"),
        ("", {"p=1": ["p=1/notes.txt"]}, "not a Hudi data file"),
        ("file:/elsewhere/", {"p=1": [f"p=1/{A}"]}, "outside the table"),
    ],
)
def test_a_plan_of_files_of_paths_gives_the_deletions_of_its_file_infos(
    tmp_path: Path, base: str, paths: dict[str, list[str]], refusal: str | None
) -> None:
    """Apply reads the files of the plan it built (a ``FilesOfPaths``) from its strings, without
    a ``CleanFileInfo`` per file: the same deletions, and the same refusals, as from the objects."""
    storage = Storage(str(tmp_path))
    files = FilesOfPaths(base or storage.uri("") + "/", paths)
    lazy = CleanerPlan(policy="KEEP_LATEST_COMMITS", file_paths_to_be_deleted_per_partition=files)
    objects = CleanerPlan(policy="KEEP_LATEST_COMMITS", file_paths_to_be_deleted_per_partition=dict(files))
    if refusal is None:
        assert plan_deletions(storage, lazy, "plan") == plan_deletions(storage, objects, "plan")
        return
    with pytest.raises(ApplyError, match=refusal) as from_objects:
        plan_deletions(storage, objects, "plan")
    with pytest.raises(ApplyError, match=refusal) as from_strings:
        plan_deletions(storage, lazy, "plan")
    assert str(from_strings.value) == str(from_objects.value)


def test_clean_metadata_records_per_partition_what_happened_and_copies_the_plan_facts() -> None:
    plan = CleanerPlan(
        policy="KEEP_LATEST_COMMITS",
        earliest_instant_to_retain=ActionInstant(
            timestamp="20250102000000000", action="commit", state="COMPLETED"
        ),
        last_completed_commit_timestamp="20250103000000000",
        extra_metadata={"maintainer.plan_id": "p1", "savepointed_timestamps": "20250101000000000"},
    )
    deletions = [PartitionDeletion("p=1", (A, B)), PartitionDeletion("p=2", (LOG,), True)]
    results = [
        PartitionDeleted("p=1", (A,), ((B, "permission denied"),)),
        PartitionDeleted("p=2", (LOG,), (), True),
    ]
    metadata = clean_metadata("20250104000000000", plan, deletions, results, 42)
    assert metadata.start_clean_time == "20250104000000000" and metadata.time_taken_in_millis == 42
    assert metadata.total_files_deleted == 2
    assert metadata.earliest_commit_to_retain == "20250102000000000"
    assert metadata.last_completed_commit_timestamp == "20250103000000000"
    assert metadata.version == 2
    assert metadata.extra_metadata == {
        "maintainer.plan_id": "p1",
        "savepointed_timestamps": "20250101000000000",
    }
    first, second = metadata.partition_metadata["p=1"], metadata.partition_metadata["p=2"]
    assert first.policy == "KEEP_LATEST_COMMITS" and first.delete_path_patterns == (A, B)
    assert first.success_delete_files == (A,) and first.failed_delete_files == (B,)
    assert first.is_partition_deleted is False and second.is_partition_deleted is True


def test_a_clean_without_earliest_commit_to_retain_records_an_empty_one() -> None:
    plan = CleanerPlan(policy="KEEP_LATEST_FILE_VERSIONS")
    metadata = clean_metadata("20250104000000000", plan, [], [], 0)
    assert metadata.earliest_commit_to_retain == "" and metadata.extra_metadata is None
    assert metadata.partition_metadata == {} and metadata.total_files_deleted == 0


@pytest.mark.parametrize(("gone_is_success", "success", "failed", "total"), [
    (True, (A, B), (), 2),
    (False, (A,), (B,), 1),
])  # fmt: skip
def test_a_file_already_gone_is_recorded_as_the_tables_hudi_version_records_it(
    gone_is_success: bool, success: tuple[str, ...], failed: tuple[str, ...], total: int
) -> None:
    """CleanActionExecutor.deleteFileAndGetResult: Hudi 1.x (table version 8+) treats a file not
    found as cleaned (successDeleteFiles, so the metadata table drops it); Hudi 0.14 (version 6)
    gets false from the delete and records it in failedDeleteFiles. totalFilesDeleted counts the
    successes (CleanerUtils.convertCleanMetadata)."""
    plan = CleanerPlan(policy="KEEP_LATEST_COMMITS")
    deletions = [PartitionDeletion("p=1", (A, B))]
    results = [PartitionDeleted("p=1", (A, B), (), False, (B,))]
    metadata = clean_metadata("20250104000000000", plan, deletions, results, 1, gone_is_success)
    partition = metadata.partition_metadata["p=1"]
    assert (partition.success_delete_files, partition.failed_delete_files) == (success, failed)
    assert metadata.total_files_deleted == total


def test_clean_metadata_has_an_empty_bootstrap_partition_map_as_hudi_writes() -> None:
    """CleanerUtils.convertCleanMetadata always passes its (here empty) partitionBootstrapMetadataMap,
    so Hudi's clean files carry ``{}``, not null."""
    metadata = clean_metadata("20250104000000000", CleanerPlan(policy="KEEP_LATEST_COMMITS"), [], [], 0)
    assert metadata.bootstrap_partition_metadata == {}
    assert metadata.to_record()["bootstrapPartitionMetadata"] == {}


def test_keep_only_restricts_deletions_and_keeps_a_partition_that_keeps_a_file() -> None:
    deletions = [
        PartitionDeletion("p=1", (LOG, A)),
        PartitionDeletion("p=2", (A, B), True),
        PartitionDeletion("p=3", (B,)),
        PartitionDeletion("", (A,)),
    ]
    only = frozenset({f"p=1/{LOG}", f"p=1/{A}", f"p=2/{A}", A})
    assert keep_only(deletions, only) == [
        PartitionDeletion("p=1", (LOG, A)),
        PartitionDeletion("p=2", (A,)),
        PartitionDeletion("", (A,)),
    ]


def test_keep_only_with_every_file_is_the_plan_itself() -> None:
    deletions = [PartitionDeletion("p=1", (A,)), PartitionDeletion("p=2", (B,), True)]
    assert keep_only(deletions, frozenset({f"p=1/{A}", f"p=2/{B}"})) == deletions
