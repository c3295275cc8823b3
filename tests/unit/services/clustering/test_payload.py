"""The requested-replace payload of a clustering, as Hudi writes it, and back."""

from __future__ import annotations

from maintainer.artifact.model import ClusterGroup, ClusterSlice, SliceFile
from maintainer.hudi import payloads
from maintainer.services.clustering.payload import (
    PlannedSlice,
    encode,
    groups_of,
    requested_replace_metadata,
)
from maintainer.services.clustering.settings import ClusteringSpec

URI = "s3://bucket/tables/t"
METRICS = {"TOTAL_IO_WRITE_MB": 1.0, "TOTAL_LOG_FILES": 2.0, "TOTAL_IO_MB": 2.0,
           "TOTAL_IO_READ_MB": 1.0, "TOTAL_LOG_FILES_SIZE": 30.0}  # fmt: skip


def _group(partition: str) -> ClusterGroup:
    with_base = ClusterSlice(
        file_id="a-0",
        base_instant="20250101000100000",
        base_file=SliceFile(name="a-0_0-1-1_20250101000100000.parquet", size=10),
        log_files=(SliceFile(name=".a-0_20250101000200000.log.1_0-1-2", size=10),),
    )
    logs_only = ClusterSlice(
        file_id="b-0",
        base_instant="20250101000200000",
        base_file=None,
        log_files=(SliceFile(name=".b-0_20250101000200000.log.1_0-1-2", size=20),),
    )
    return ClusterGroup(
        partition=partition, slices=(with_base, logs_only), num_output_file_groups=1, metrics=METRICS
    )


def test_slices_carry_absolute_paths_and_an_empty_path_without_base_file() -> None:
    metadata = requested_replace_metadata([_group("dt=1")], ClusteringSpec(), URI, 8)
    plan = metadata.clustering_plan
    assert plan is not None and plan.input_groups is not None
    first, second = plan.input_groups[0].slices or ()
    assert first.data_file_path == f"{URI}/dt=1/a-0_0-1-1_20250101000100000.parquet"
    assert first.delta_file_paths == (f"{URI}/dt=1/.a-0_20250101000200000.log.1_0-1-2",)
    assert (first.partition_path, first.file_id, first.bootstrap_file_path, first.version) == (
        "dt=1",
        "a-0",
        "",
        1,
    )
    assert second.data_file_path == "" and second.delta_file_paths == (
        f"{URI}/dt=1/.b-0_20250101000200000.log.1_0-1-2",
    )
    unpartitioned = requested_replace_metadata([_group("")], ClusteringSpec(), "file:/data/t/", 8)
    assert (
        unpartitioned.clustering_plan is not None and unpartitioned.clustering_plan.input_groups is not None
    )
    slices = unpartitioned.clustering_plan.input_groups[0].slices or ()
    assert slices[0].data_file_path == "file:/data/t/a-0_0-1-1_20250101000100000.parquet"


def test_the_plan_record_is_hudis() -> None:
    metadata = requested_replace_metadata([_group("p")], ClusteringSpec(), URI, 9, ("q",))
    assert (metadata.operation_type, metadata.extra_metadata, metadata.version) == ("CLUSTER", {}, 1)
    plan = metadata.clustering_plan
    assert plan is not None and plan.strategy is not None and plan.input_groups is not None
    assert plan.strategy.strategy_class_name == (
        "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
    )
    assert plan.strategy.strategy_params == {} and plan.strategy.version == 1
    assert (plan.version, plan.preserve_hoodie_metadata, plan.extra_metadata) == (1, True, {})
    assert plan.missing_schedule_partitions == ("q",)
    group = plan.input_groups[0]
    assert (group.num_output_file_groups, group.extra_metadata, group.version) == (1, None, 1)
    assert list(group.metrics or {}) == [
        "TOTAL_LOG_FILES", "TOTAL_IO_MB", "TOTAL_IO_READ_MB", "TOTAL_LOG_FILES_SIZE", "TOTAL_IO_WRITE_MB"
    ]  # fmt: skip


def test_version_6_has_no_missing_partitions() -> None:
    metadata = requested_replace_metadata([_group("p")], ClusteringSpec(), URI, 6, ("q",))
    assert (
        metadata.clustering_plan is not None and metadata.clustering_plan.missing_schedule_partitions is None
    )
    assert (
        payloads.decode_requested_replace_metadata(encode(metadata), "t.replacecommit.requested") == metadata
    )


def test_sort_columns_and_layout_are_strategy_params() -> None:
    def params(spec: ClusteringSpec) -> dict[str, str]:
        plan = requested_replace_metadata([_group("p")], spec, URI, 8).clustering_plan
        assert plan is not None and plan.strategy is not None
        return dict(plan.strategy.strategy_params or {})

    assert params(ClusteringSpec(sort_columns=("a", "b"))) == {
        "hoodie.clustering.plan.strategy.sort.columns": "a,b"
    }
    assert params(ClusteringSpec(sort_columns=("a", "b"), layout="hilbert")) == {
        "hoodie.clustering.plan.strategy.sort.columns": "a,b",
        "hoodie.layout.optimize.strategy": "hilbert",
    }


def test_encoded_bytes_decode_to_the_same_record_and_back_to_file_names() -> None:
    metadata = requested_replace_metadata([_group("p")], ClusteringSpec(sort_columns=("a",)), URI, 8)
    data = encode(metadata)
    assert data == encode(metadata)  # deterministic
    decoded = payloads.decode_requested_replace_metadata(data, "t.clustering.requested")
    assert decoded == metadata
    assert groups_of(decoded) == [
        [
            PlannedSlice(
                "p", "a-0", "a-0_0-1-1_20250101000100000.parquet", (".a-0_20250101000200000.log.1_0-1-2",)
            ),
            PlannedSlice("p", "b-0", None, (".b-0_20250101000200000.log.1_0-1-2",)),
        ]
    ]
