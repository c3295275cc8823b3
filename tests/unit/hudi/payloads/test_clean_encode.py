"""The direct clean-plan and clean-metadata encoders write exactly the bytes of the generic
fastavro path."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.errors import MaintainerError
from maintainer.hudi import payloads as p
from maintainer.hudi.payloads.clean_encode import clean_metadata_datum, cleaner_plan_datum, encode_long
from maintainer.hudi.payloads.container import encode_datum, write_container
from tests.unit.hudi.payloads import samples

TEXT = st.text(max_size=300)
KEYS = st.text(max_size=20)
instants = st.builds(p.ActionInstant, timestamp=TEXT, action=TEXT, state=TEXT)
file_infos = st.builds(
    p.CleanFileInfo,
    file_path=st.one_of(st.none(), TEXT),
    is_bootstrap_base_file=st.sampled_from([None, False, True]),
)
plans = st.builds(
    p.CleanerPlan,
    policy=TEXT,
    earliest_instant_to_retain=st.one_of(st.none(), instants),
    last_completed_commit_timestamp=TEXT,
    files_to_be_deleted_per_partition=st.one_of(
        st.none(), st.dictionaries(KEYS, st.lists(TEXT, max_size=3).map(tuple), max_size=3)
    ),
    version=st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)),
    file_paths_to_be_deleted_per_partition=st.one_of(
        st.none(), st.dictionaries(KEYS, st.lists(file_infos, max_size=5).map(tuple), max_size=4)
    ),
    partitions_to_be_deleted=st.one_of(st.none(), st.lists(TEXT, max_size=3).map(tuple)),
    extra_metadata=st.one_of(st.none(), st.dictionaries(KEYS, TEXT, max_size=3)),
)

names = st.lists(TEXT, max_size=4).map(tuple)
partition_metadata = st.builds(
    p.CleanPartitionMetadata,
    partition_path=KEYS,
    policy=TEXT,
    delete_path_patterns=names,
    success_delete_files=names,
    failed_delete_files=names,
    is_partition_deleted=st.sampled_from([None, False, True]),
)
metadata = st.builds(
    p.CleanMetadata,
    start_clean_time=TEXT,
    time_taken_in_millis=st.integers(-(2**63), 2**63 - 1),
    total_files_deleted=st.integers(-(2**31), 2**31 - 1),
    earliest_commit_to_retain=TEXT,
    last_completed_commit_timestamp=TEXT,
    partition_metadata=st.dictionaries(KEYS, partition_metadata, max_size=4),
    version=st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)),
    bootstrap_partition_metadata=st.one_of(st.none(), st.dictionaries(KEYS, partition_metadata, max_size=2)),
    extra_metadata=st.one_of(st.none(), st.dictionaries(KEYS, TEXT, max_size=3)),
)


@settings(max_examples=300, deadline=None)
@given(plans)
def test_direct_encoding_is_fastavros(plan: p.CleanerPlan) -> None:
    assert cleaner_plan_datum(plan) == encode_datum(plan.SCHEMA, plan.to_record())
    assert p.encode_avro(plan) == write_container(plan.SCHEMA, plan.to_record())


@settings(max_examples=300, deadline=None)
@given(metadata)
def test_direct_metadata_encoding_is_fastavros(clean: p.CleanMetadata) -> None:
    assert clean_metadata_datum(clean) == encode_datum(clean.SCHEMA, clean.to_record())
    assert p.encode_avro(clean) == write_container(clean.SCHEMA, clean.to_record())
    assert p.decode_clean_metadata(p.encode_avro(clean), "test") == clean


def test_large_metadata_with_long_names() -> None:
    names = tuple("x" * n for n in (0, 50, 63, 64, 127, 128, 4000, 5000, 70000))
    partition = p.CleanPartitionMetadata(partition_path="a", policy="KEEP_LATEST_COMMITS",
                                         delete_path_patterns=names, success_delete_files=names)  # fmt: skip
    clean = p.CleanMetadata(start_clean_time="1", time_taken_in_millis=10**12, total_files_deleted=len(names),
                            earliest_commit_to_retain="", partition_metadata={"a": partition})  # fmt: skip
    assert p.encode_avro(clean) == write_container(clean.SCHEMA, clean.to_record())


def test_sample_metadata_round_trips() -> None:
    clean = samples.clean_metadata()
    assert p.encode_avro(clean) == write_container(clean.SCHEMA, clean.to_record())
    assert p.decode_clean_metadata(p.encode_avro(clean), "test") == clean


def test_metadata_of_the_wrong_type_is_a_maintainer_error() -> None:
    partition = p.CleanPartitionMetadata(partition_path="a", policy="P", is_partition_deleted="yes")  # type: ignore[arg-type]
    with pytest.raises(MaintainerError, match="HoodieCleanMetadata"):
        clean_metadata_datum(_metadata({"a": partition}))
    with pytest.raises(MaintainerError, match="totalFilesDeleted 2147483648 does not fit an Avro int"):
        clean_metadata_datum(_metadata({}, total=2**31))
    with pytest.raises(MaintainerError, match="HoodieCleanMetadata"):
        clean_metadata_datum(_metadata({"a": None}))  # type: ignore[dict-item]


def _metadata(partitions: dict[str, p.CleanPartitionMetadata], total: int = 0) -> p.CleanMetadata:
    return p.CleanMetadata(start_clean_time="1", time_taken_in_millis=0, total_files_deleted=total,
                           earliest_commit_to_retain="", partition_metadata=partitions)  # fmt: skip


def test_large_plan_with_long_paths() -> None:
    infos = tuple(
        p.CleanFileInfo(file_path="s3://bucket/t/" + "x" * n, is_bootstrap_base_file=False)
        for n in (0, 50, 63, 64, 127, 128, 4000, 5000, 70000)
    )
    plan = p.CleanerPlan(policy="KEEP_LATEST_COMMITS", file_paths_to_be_deleted_per_partition={"a": infos})
    assert p.encode_avro(plan) == write_container(plan.SCHEMA, plan.to_record())
    assert p.decode_cleaner_plan(p.encode_avro(plan), "test") == plan


def test_sample_plan_round_trips() -> None:
    plan = samples.cleaner_plan()
    assert p.decode_cleaner_plan(p.encode_avro(plan), "test") == plan


@pytest.mark.parametrize("value", [0, 1, -1, 63, 64, -65, 2**31 - 1, -(2**31), 2**40, -(2**63)])
def test_longs_are_zigzag_varints(value: int) -> None:
    plan = p.CleanerPlan(policy="", version=value if -(2**31) <= value < 2**31 else None)
    assert cleaner_plan_datum(plan) == encode_datum(plan.SCHEMA, plan.to_record())
    assert encode_long(value) == _reference_long(value)


def _reference_long(value: int) -> bytes:
    """Avro's spec: zig-zag, then 7 bits per byte, low bits first."""
    zigzag = (value << 1) ^ (value >> 63)
    out = []
    while True:
        out.append(zigzag & 0x7F)
        zigzag >>= 7
        if not zigzag:
            break
        out[-1] |= 0x80
    return bytes(out)


def test_values_of_the_wrong_type_are_a_maintainer_error() -> None:
    with pytest.raises(MaintainerError, match="HoodieCleanerPlan"):
        cleaner_plan_datum(p.CleanerPlan(policy=None))  # type: ignore[arg-type]
    with pytest.raises(MaintainerError, match="does not fit an Avro int"):
        cleaner_plan_datum(p.CleanerPlan(policy="", version=2**31))


LONG_OR_NOT = st.one_of(TEXT, st.integers(4000, 4200).map(lambda n: "p" * n))
"""Paths of any characters, and ASCII ones whose URI length needs a longer varint than most."""
paths_per_partition = st.dictionaries(
    st.one_of(st.just(""), KEYS), st.lists(LONG_OR_NOT, max_size=5), max_size=4
)


@settings(max_examples=300, deadline=None)
@given(plans, st.one_of(st.just("file:/lake/t/"), TEXT), paths_per_partition)
def test_a_plan_of_files_of_paths_is_written_as_the_plan_of_their_file_infos(
    plan: p.CleanerPlan, base: str, paths: dict[str, list[str]]
) -> None:
    """A plan whose files are a ``FilesOfPaths`` is written from the strings, without a
    ``CleanFileInfo`` per file: the bytes of the same plan with those objects, as fastavro
    writes them (empty partition, empty lists, non-ASCII, long paths included), and it is equal
    to that plan (and to the plan its bytes decode to)."""
    infos = {
        partition: tuple(p.CleanFileInfo(file_path=base + n, is_bootstrap_base_file=False) for n in names)
        for partition, names in paths.items()
    }
    lazy = replace(plan, file_paths_to_be_deleted_per_partition=p.FilesOfPaths(base, paths))
    full = replace(plan, file_paths_to_be_deleted_per_partition=infos)
    assert p.encode_avro(lazy) == p.encode_avro(full) == write_container(full.SCHEMA, full.to_record())
    assert cleaner_plan_datum(lazy) == encode_datum(lazy.SCHEMA, lazy.to_record())
    assert lazy == full
    assert p.decode_cleaner_plan(p.encode_avro(lazy), "test") == lazy


def test_files_of_paths_reads_as_the_mapping_of_their_file_infos() -> None:
    paths = {"": ["f.parquet"], "a=1": ["a=1/g.parquet", "a=1/h.parquet"]}
    files = p.FilesOfPaths("s3://b/t/", paths)
    assert len(files) == 2 and list(files) == ["", "a=1"] and "a=1" in files and "b" not in files
    assert files["a=1"] == (
        p.CleanFileInfo(file_path="s3://b/t/a=1/g.parquet", is_bootstrap_base_file=False),
        p.CleanFileInfo(file_path="s3://b/t/a=1/h.parquet", is_bootstrap_base_file=False),
    )
    assert dict(files) == {"": files[""], "a=1": files["a=1"]}
    assert files != p.FilesOfPaths("s3://b/u/", paths)
    assert "s3://b/t/" in repr(files)


def test_a_plan_of_paths_that_are_not_strings_is_a_maintainer_error() -> None:
    for paths in ({"a": [None]}, {"a": ["\ud800"]}):  # not a string; not encodable
        files = p.FilesOfPaths("file:/t/", paths)  # type: ignore[arg-type]
        plan = p.CleanerPlan(policy="KEEP_LATEST_COMMITS", file_paths_to_be_deleted_per_partition=files)
        with pytest.raises(MaintainerError, match="HoodieCleanerPlan"):
            p.encode_avro(plan)
