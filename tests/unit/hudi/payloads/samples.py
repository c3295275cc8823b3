"""Hand-built payloads with every kind of field set (values shaped like real Hudi files)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from maintainer.hudi import payloads as p

BASE = "/data/trips"
FILE_ID = "6e1d3c52-7a0b-4c57-9f4e-0d3b5c1f2a11-0"
BASE_FILE = f"{FILE_ID}_2-986-2794_20251220210108078.parquet"
LOG_FILE = f".{FILE_ID}_20251220210127080.log.1_0-1072-3078"


def cleaner_plan() -> p.CleanerPlan:
    return p.CleanerPlan(
        policy="KEEP_LATEST_COMMITS",
        earliest_instant_to_retain=p.ActionInstant(
            timestamp="20251220210108078", action="commit", state="COMPLETED"
        ),
        last_completed_commit_timestamp="20251220210130000",
        files_to_be_deleted_per_partition={},
        file_paths_to_be_deleted_per_partition={
            "city=chennai": (
                p.CleanFileInfo(file_path=f"{BASE}/city=chennai/{BASE_FILE}", is_bootstrap_base_file=False),
            ),
            "": (),
        },
        partitions_to_be_deleted=("city=gone",),
        extra_metadata={"savepointed_timestamps": ""},
    )


def clean_metadata() -> p.CleanMetadata:
    partition = p.CleanPartitionMetadata(
        partition_path="city=chennai",
        policy="KEEP_LATEST_COMMITS",
        delete_path_patterns=(BASE_FILE,),
        success_delete_files=(BASE_FILE,),
        failed_delete_files=(),
        is_partition_deleted=False,
    )
    return p.CleanMetadata(
        start_clean_time="20251220210200000",
        time_taken_in_millis=1234,
        total_files_deleted=1,
        earliest_commit_to_retain="20251220210108078",
        last_completed_commit_timestamp="20251220210130000",
        partition_metadata={"city=chennai": partition},
        bootstrap_partition_metadata={},
        extra_metadata=None,
    )


def compaction_plan() -> p.CompactionPlan:
    operation = p.CompactionOperation(
        base_instant_time="20251220210108078",
        file_id=FILE_ID,
        partition_path="city=chennai",
        data_file_path=BASE_FILE,
        delta_file_paths=(LOG_FILE,),
        metrics={"TOTAL_LOG_FILES": 1.0, "TOTAL_LOG_FILES_SIZE": 11828.0, "TOTAL_IO_MB": 0.5},
    )
    return p.CompactionPlan(
        operations=(operation,),
        extra_metadata={"maintainer.artifact.id": "abc"},
        strategy=p.CompactionStrategy(compactor_class_name=None, strategy_params={"k": "v"}),
        missing_schedule_partitions=(),
    )


def rollback_plan() -> p.RollbackPlan:
    return p.RollbackPlan(
        instant_to_rollback=p.InstantInfo(commit_time="20250126040826878", action="deltacommit"),
        rollback_requests=(
            p.RollbackRequest(
                partition_path="",
                file_id="",
                latest_base_instant="",
                files_to_be_deleted=(f"{BASE}/{BASE_FILE}",),
                log_blocks_to_be_deleted={},
            ),
            p.RollbackRequest(
                partition_path="",
                file_id=FILE_ID,
                latest_base_instant="20250126040823628",
                log_blocks_to_be_deleted={f"file:{BASE}/{LOG_FILE}": 11828},
            ),
        ),
    )


def rollback_metadata() -> p.RollbackMetadata:
    return p.RollbackMetadata(
        start_rollback_time="20250126040936578",
        time_taken_in_millis=77,
        total_files_deleted=1,
        commits_rollback=("20250126040826878",),
        partition_metadata={
            "": p.RollbackPartitionMetadata(
                partition_path="",
                success_delete_files=(f"{BASE}/{BASE_FILE}",),
                rollback_log_files={f"{BASE}/{LOG_FILE}": 11828},
                log_files_from_failed_commit={},
            )
        },
        instants_rollback=(p.InstantInfo(commit_time="20250126040826878", action="deltacommit"),),
    )


def savepoint_metadata() -> p.SavepointMetadata:
    return p.SavepointMetadata(
        savepointed_by="maintainer",
        savepointed_at=1_766_264_468_078,
        comments="before backfill",
        partition_metadata={
            "city=chennai": p.SavepointPartitionMetadata(
                partition_path="city=chennai", savepoint_data_file=(BASE_FILE, LOG_FILE)
            )
        },
    )


def write_stat() -> p.WriteStat:
    return p.WriteStat(
        file_id=FILE_ID,
        path=f"city=chennai/{BASE_FILE}",
        prev_commit="20251220210108078",
        partition_path="city=chennai",
        num_writes=10,
        num_deletes=1,
        num_update_writes=4,
        num_inserts=5,
        total_write_bytes=440982,
        total_write_errors=0,
        file_size_in_bytes=440982,
        total_log_records=7,
        total_log_files_compacted=1,
        total_log_size_compacted=11828,
        total_updated_records_compacted=4,
        runtime_stats={"totalScanTime": 3, "totalUpsertTime": 2, "totalCreateTime": 1},
    )


def commit_metadata() -> p.CommitMetadata:
    return p.CommitMetadata(
        partition_to_write_stats={"city=chennai": (write_stat(),)},
        compacted=True,
        extra_metadata={"schema": '{"type":"record","name":"trips","fields":[]}'},
        version=1,
        operation_type="COMPACT",
    )


def replace_commit_metadata() -> p.ReplaceCommitMetadata:
    return p.ReplaceCommitMetadata(
        partition_to_write_stats={"city=chennai": (write_stat(),)},
        extra_metadata={},
        operation_type="CLUSTER",
        partition_to_replace_file_ids={"city=chennai": (FILE_ID,), "city=gone": ()},
    )


def requested_replace_metadata() -> p.RequestedReplaceMetadata:
    group = p.ClusteringGroup(
        slices=(
            p.SliceInfo(
                file_id=FILE_ID, partition_path="city=chennai", data_file_path=BASE_FILE, delta_file_paths=()
            ),
        ),
        metrics={"TOTAL_IO_MB": 1.0},
        num_output_file_groups=1,
        extra_metadata={},
    )
    plan = p.ClusteringPlan(
        input_groups=(group,),
        strategy=p.ClusteringStrategy(strategy_class_name="SparkSortAndSizeExecutionStrategy"),
        preserve_hoodie_metadata=True,
    )
    return p.RequestedReplaceMetadata(operation_type="CLUSTER", clustering_plan=plan, extra_metadata={})


def archived_meta_entry() -> p.ArchivedMetaEntry:
    return p.ArchivedMetaEntry(
        commit_time="20251220210200000",
        action_type="clean",
        action_state="REQUESTED",
        state_transition_time="20251220210200100",
        cleaner_plan=cleaner_plan(),
    )


def lsm_timeline_instant() -> p.LSMTimelineInstant:
    return p.LSMTimelineInstant(
        instant_time="20251220210200000",
        completion_time="20251220210201000",
        action="clean",
        metadata=p.encode_avro(clean_metadata()),
        plan=p.encode_avro(cleaner_plan()),
    )


AVRO_SAMPLES: dict[str, Callable[[], Any]] = {
    "cleaner_plan": cleaner_plan,
    "clean_metadata": clean_metadata,
    "compaction_plan": compaction_plan,
    "rollback_plan": rollback_plan,
    "rollback_metadata": rollback_metadata,
    "savepoint_metadata": savepoint_metadata,
    "commit_metadata": commit_metadata,
    "replace_commit_metadata": replace_commit_metadata,
    "requested_replace_metadata": requested_replace_metadata,
    "archived_meta_entry": archived_meta_entry,
    "lsm_timeline_instant": lsm_timeline_instant,
}
