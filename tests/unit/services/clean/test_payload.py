"""The clean plan payload built from a clean node's effect: what Hudi's CleanPlanActionExecutor
writes (version 2, absolute paths per partition, ECTR, savepoints), plus the plan id."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.artifact.model import Action, CleanEffect, DeletePartition, NodePlan
from maintainer.hudi.payloads import CleanerPlan, decode_cleaner_plan, encode_avro
from maintainer.services.clean.node import built_clean_payloads
from maintainer.services.clean.payload import (
    cleaner_plan_bytes,
    cleaner_plan_for,
    node_cleaner_plan,
    node_cleaner_plan_bytes,
    partition_of,
)
from maintainer.storage import Storage
from tests.support.plans import clean_effect, delete_file, node

STORAGE = Storage("/lake/t")
FILES = ["b=2/f2.parquet", "a=1/f1.parquet", "a=1/.f1_1.log.1_0-1-1"]
EMPTIED = ["b=2"]


def effect(**overrides: object) -> CleanEffect:
    return clean_effect(
        3,
        6,
        **{
            "earliest_commit_to_retain": "20250101000000000",
            "earliest_commit_to_retain_action": "commit",
            "last_completed_commit": "20250102000000000",
            **overrides,
        },
    )


def planned(effect: CleanEffect, plan_id: str = "pid") -> CleanerPlan:
    return cleaner_plan_for(effect, STORAGE, plan_id, FILES, EMPTIED)


def test_partition_of_a_table_relative_path() -> None:
    assert partition_of("a=1/b=2/f.parquet") == "a=1/b=2"
    assert partition_of("f.parquet") == ""


def test_files_are_grouped_per_partition_with_absolute_uris() -> None:
    plan = planned(effect())
    paths = {
        partition: [info.file_path for info in infos]
        for partition, infos in (plan.file_paths_to_be_deleted_per_partition or {}).items()
    }
    assert paths == {
        "a=1": ["file:/lake/t/a=1/.f1_1.log.1_0-1-1", "file:/lake/t/a=1/f1.parquet"],
        "b=2": ["file:/lake/t/b=2/f2.parquet"],
    }
    assert all(
        info.is_bootstrap_base_file is False
        for infos in (plan.file_paths_to_be_deleted_per_partition or {}).values()
        for info in infos
    )
    assert plan.files_to_be_deleted_per_partition == {}
    assert plan.partitions_to_be_deleted == ("b=2",)


def test_plan_fields_follow_hudi() -> None:
    plan = planned(effect())
    assert plan.version == 2
    assert plan.policy == "KEEP_LATEST_COMMITS"
    assert plan.last_completed_commit_timestamp == "20250102000000000"
    assert plan.earliest_instant_to_retain is not None
    assert plan.earliest_instant_to_retain.to_record() == {
        "timestamp": "20250101000000000",
        "action": "commit",
        "state": "COMPLETED",
    }


def test_no_earliest_commit_to_retain_is_null() -> None:
    plan = planned(effect(earliest_commit_to_retain=None, earliest_commit_to_retain_action=None))
    assert plan.earliest_instant_to_retain is None


def test_extra_metadata_has_the_plan_id_and_savepoints_only_when_there_are_some() -> None:
    assert planned(effect()).extra_metadata == {"maintainer.plan_id": "pid"}
    with_savepoints = planned(effect(savepointed_timestamps=("1", "2")))
    assert with_savepoints.extra_metadata == {"savepointed_timestamps": "1,2", "maintainer.plan_id": "pid"}


def test_intersection_at_apply_deletes_only_the_files_given() -> None:
    plan = cleaner_plan_for(effect(), STORAGE, "pid", ["a=1/f1.parquet"], [])
    assert list(plan.file_paths_to_be_deleted_per_partition or {}) == ["a=1"]
    assert plan.partitions_to_be_deleted == ()


def test_bytes_are_deterministic_and_decode_with_hudis_schema() -> None:
    data = cleaner_plan_bytes(effect(), STORAGE, "pid", FILES, EMPTIED)
    assert data == cleaner_plan_bytes(effect(), STORAGE, "pid", list(reversed(FILES)), EMPTIED)
    assert decode_cleaner_plan(data, "plan") == planned(effect())
    assert data != cleaner_plan_bytes(effect(), STORAGE, "other", FILES, EMPTIED)


def test_the_plan_apply_passes_on_equals_the_decoded_bytes() -> None:
    """Apply hands run_clean_instant the plan it encoded instead of decoding the bytes again:
    that holds only while the round trip gives an equal plan."""
    for savepoints in ((), ("20250101000000000",)):
        built = cleaner_plan_for(effect(savepointed_timestamps=savepoints), STORAGE, "pid", FILES, EMPTIED)
        assert decode_cleaner_plan(encode_avro(built), "test") == built


def test_a_nodes_built_payload_is_its_bytes_and_the_plan_they_encode() -> None:
    """What the up-front check of a plan hands on to the clean node: the payload's bytes and
    the clean plan they encode (so the node neither builds nor decodes it again), for the node,
    its table and the plan id, never another's."""

    def clean_node(files: list[str]) -> NodePlan:
        actions = tuple(delete_file(path, 1) for path in files)
        return node("t", "clean", actions, effect=effect(), payloads=("t.clean.requested",))

    first = clean_node(FILES)
    (built,) = built_clean_payloads(first, STORAGE, "pid").values()
    assert built.data == cleaner_plan_bytes(effect(), STORAGE, "pid", FILES, [])
    assert isinstance(built.record, CleanerPlan) and encode_avro(built.record) == built.data
    assert node_cleaner_plan(first, STORAGE, "pid") == (built.record, built.data)
    other = clean_node(FILES[:1])
    assert node_cleaner_plan(other, STORAGE, "pid")[1] == cleaner_plan_bytes(
        effect(), STORAGE, "pid", FILES[:1], []
    )
    assert node_cleaner_plan(first, Storage("/lake/u"), "pid")[1] != built.data
    assert node_cleaner_plan(first, STORAGE, "other")[1] != built.data
    assert built_clean_payloads(node("t", "clean", (), effect=effect()), STORAGE, "pid") == {}


SEGMENT = st.text(st.characters(codec="utf-8", exclude_characters="/"), min_size=1, max_size=12)
RELATIVE = st.lists(SEGMENT, min_size=1, max_size=3).map("/".join)
"""Table-relative paths: a file of the table root (non-partitioned) or of nested partitions,
non-ASCII included."""


@settings(max_examples=150, deadline=None)
@given(
    st.lists(RELATIVE, max_size=12, unique=True),
    st.lists(RELATIVE, max_size=3, unique=True),
    st.sampled_from(["/lake/t", "/lake/tàble"]),
)
def test_a_nodes_payload_is_written_from_its_paths_as_from_its_clean_plan(
    files: list[str], emptied: list[str], table: str
) -> None:
    """The payload the plan side writes (straight from the paths, no ``CleanFileInfo`` per
    file) is the encoding of the clean plan the apply side builds, whatever the paths and
    their order (only partitions to delete, nothing at all)."""
    storage = Storage(table)
    actions: tuple[Action, ...] = (
        *(delete_file(path, 1) for path in files),
        *(DeletePartition(target=partition, reason="emptied") for partition in emptied),
    )
    clean = node("t", "clean", actions, effect=effect(), payloads=("t.clean.requested",))
    plan, data = node_cleaner_plan(clean, storage, "pid")
    assert node_cleaner_plan_bytes(clean, storage, "pid") == data == encode_avro(plan)
    assert plan == cleaner_plan_for(effect(), storage, "pid", sorted(files, reverse=True), emptied)
    assert cleaner_plan_bytes(effect(), storage, "pid", files[::-1], emptied) == data
