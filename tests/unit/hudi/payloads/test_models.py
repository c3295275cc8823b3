from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import fastavro
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError
from maintainer.hudi import payloads as p
from maintainer.hudi.payloads import jackson
from maintainer.hudi.payloads.write_stat import JSON_BASE_FIELDS, JSON_DELTA_FIELDS
from tests.unit.hudi.payloads import samples

WHERE = ".hoodie/20251220210200000.clean.requested"


@pytest.mark.parametrize("make", samples.AVRO_SAMPLES.values(), ids=samples.AVRO_SAMPLES.keys())
def test_every_model_round_trips_through_its_avro_container(make: Callable[[], Any]) -> None:
    model = make()
    data = p.encode_avro(model)
    record = p.read_container(data, WHERE)
    assert record == model.to_record()
    assert type(model).from_record(record) == model
    assert p.encode_avro(type(model).from_record(record)) == data


DECODERS = [
    (samples.cleaner_plan, p.decode_cleaner_plan),
    (samples.clean_metadata, p.decode_clean_metadata),
    (samples.compaction_plan, p.decode_compaction_plan),
    (samples.rollback_plan, p.decode_rollback_plan),
    (samples.rollback_metadata, p.decode_rollback_metadata),
    (samples.savepoint_metadata, p.decode_savepoint_metadata),
    (samples.requested_replace_metadata, p.decode_requested_replace_metadata),
]


@pytest.mark.parametrize(("make", "decode"), DECODERS, ids=[make.__name__ for make, _ in DECODERS])
def test_decoders_read_their_payload_and_none_from_an_empty_file(make: Any, decode: Any) -> None:
    model = make()
    assert decode(p.encode_avro(model), WHERE) == model
    assert decode(b"", WHERE) is None


def test_a_payload_of_another_type_is_refused_naming_the_file() -> None:
    with pytest.raises(
        CorruptFileError, match="expected an Avro HoodieCleanerPlan, found HoodieRollbackPlan"
    ):
        p.decode_cleaner_plan(p.encode_avro(samples.rollback_plan()), WHERE)


def test_a_record_missing_a_required_field_is_corrupt() -> None:
    schema = {
        "type": "record",
        "name": "HoodieCleanMetadata",
        "namespace": "org.apache.hudi.avro.model",
        "fields": [{"name": "startCleanTime", "type": "string"}],
    }
    buffer = io.BytesIO()
    fastavro.writer(buffer, fastavro.parse_schema(schema), [{"startCleanTime": "1"}])
    with pytest.raises(CorruptFileError, match="not a valid HoodieCleanMetadata") as error:
        p.decode_clean_metadata(buffer.getvalue(), WHERE)
    assert error.value.where == WHERE


def test_commit_metadata_of_either_format() -> None:
    metadata = samples.commit_metadata()
    assert p.decode_commit_metadata(p.encode_avro(metadata), WHERE) == metadata
    from_json = p.decode_commit_metadata(p.encode_commit_metadata_json(metadata), WHERE)
    assert from_json.to_json_bytes() == metadata.to_json_bytes()
    [stat] = from_json.write_stats()
    assert stat.total_log_blocks == 0, "Java primitives are written as 0 when unset"
    assert from_json.version is None and from_json.operation_type == "COMPACT"


def test_empty_commit_files_decode_to_empty_metadata_as_hudi_does() -> None:
    empty = p.decode_commit_metadata(b"", WHERE)
    assert empty == p.CommitMetadata.empty()
    assert empty.partition_to_write_stats == {} and empty.operation_type == "UNKNOWN"
    assert list(empty.write_stats()) == []
    replace = p.decode_replace_commit_metadata(b"", WHERE)
    assert replace.partition_to_replace_file_ids == {} and replace.replaced_file_ids() == frozenset()


@pytest.mark.parametrize("data", [b"{ garbage", b"[]", b'{"partitionToWriteStats": 3}'])
def test_bad_json_commit_metadata_is_corrupt_naming_the_file(data: bytes) -> None:
    with pytest.raises(CorruptFileError) as error:
        p.decode_commit_metadata(data, ".hoodie/1.commit")
    assert error.value.where == ".hoodie/1.commit"


def test_new_write_stat_json_has_every_jackson_property_with_java_defaults() -> None:
    stat = p.WriteStat(file_id="f-0", path="p/f.parquet", partition_path="p", num_inserts=3)
    written = stat.to_json()
    assert tuple(written) == JSON_BASE_FIELDS
    assert written["numWrites"] == 0 and written["numInserts"] == 3 and written["minEventTime"] is None
    delta = p.WriteStat(file_id="f-0", log_version=1, base_file="f.parquet").to_json()
    assert tuple(delta) == JSON_BASE_FIELDS + JSON_DELTA_FIELDS
    assert delta["logFiles"] == [] and delta["recordsStats"] == {"val": None} and delta["logOffset"] == 0


def test_unknown_json_properties_survive_a_round_trip() -> None:
    stat = {**samples.write_stat().to_json(), "futureField": {"a": 1}}
    document = {"partitionToWriteStats": {"p": [stat]}, "compacted": False, "extraMetadata": {}}
    document |= {"operationType": "UPSERT", "futureTopLevel": [1]}
    data = jackson.dumps(document).encode()
    metadata = p.decode_commit_metadata(data, WHERE)
    assert metadata.extra == {"futureTopLevel": [1]}
    assert metadata.to_json_bytes() == data


def test_replace_commit_json_puts_replaced_file_ids_after_the_operation() -> None:
    metadata = p.ReplaceCommitMetadata(
        partition_to_write_stats={},
        extra_metadata={},
        operation_type="INSERT_OVERWRITE",
        partition_to_replace_file_ids={"b": ("f-2",), "a": ("f-1",)},
    )
    written = json.loads(metadata.to_json_bytes())
    assert list(written) == [
        "partitionToWriteStats",
        "compacted",
        "extraMetadata",
        "operationType",
        "partitionToReplaceFileIds",
    ]
    assert list(written["partitionToReplaceFileIds"]) == ["b", "a"]
    assert metadata.replaced_file_ids() == {("a", "f-1"), ("b", "f-2")}
    assert p.decode_replace_commit_metadata(p.encode_avro(metadata), WHERE) == metadata


def test_helpers_of_savepoint_and_clustering() -> None:
    assert samples.savepoint_metadata().data_files() == {samples.BASE_FILE, samples.LOG_FILE}
    replace = samples.requested_replace_metadata()
    assert replace.file_groups() == {("city=chennai", samples.FILE_ID)}
    assert p.RequestedReplaceMetadata().file_groups() == frozenset()


def test_archived_entry_holds_typed_payloads_and_lsm_instant_raw_bytes() -> None:
    entry = p.ArchivedMetaEntry.from_record(
        p.read_container(p.encode_avro(samples.archived_meta_entry()), WHERE)
    )
    assert entry.cleaner_plan == samples.cleaner_plan() and entry.commit_metadata is None
    instant = samples.lsm_timeline_instant()
    assert instant.plan is not None and p.decode_cleaner_plan(instant.plan, WHERE) == samples.cleaner_plan()


# -- property tests -----------------------------------------------------------------------------

names = st.text(st.characters(codec="utf-8"), max_size=12)
file_names = st.from_regex(r"[a-f0-9-]{4,12}_[0-9]-[0-9]{1,3}-[0-9]{1,3}_[0-9]{17}\.parquet", fullmatch=True)
optional_map = st.none() | st.dictionaries(names, names, max_size=3)

clean_file_infos = st.builds(
    p.CleanFileInfo, file_path=st.none() | file_names, is_bootstrap_base_file=st.none() | st.booleans()
)
cleaner_plans = st.builds(
    p.CleanerPlan,
    policy=st.sampled_from(["KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS"]),
    earliest_instant_to_retain=st.none()
    | st.builds(p.ActionInstant, timestamp=names, action=names, state=st.just("COMPLETED")),
    last_completed_commit_timestamp=names,
    files_to_be_deleted_per_partition=st.none()
    | st.dictionaries(names, st.lists(file_names, max_size=3).map(tuple), max_size=3),
    version=st.none() | st.integers(-(2**31), 2**31 - 1),
    file_paths_to_be_deleted_per_partition=st.none()
    | st.dictionaries(names, st.lists(clean_file_infos, max_size=3).map(tuple), max_size=3),
    partitions_to_be_deleted=st.none() | st.lists(names, max_size=3).map(tuple),
    extra_metadata=optional_map,
)


@settings(max_examples=60, deadline=None)
@given(cleaner_plans)
def test_generated_cleaner_plans_round_trip_byte_for_byte(plan: p.CleanerPlan) -> None:
    data = p.encode_avro(plan)
    decoded = p.decode_cleaner_plan(data, WHERE)
    assert decoded == plan
    assert decoded is not None and p.encode_avro(decoded) == data


operations = st.builds(
    p.CompactionOperation,
    base_instant_time=st.none() | names,
    file_id=st.none() | names,
    partition_path=st.none() | names,
    data_file_path=st.none() | file_names,
    delta_file_paths=st.none() | st.lists(names, max_size=3).map(tuple),
    metrics=st.none() | st.dictionaries(names, st.floats(allow_nan=False), max_size=4),
    bootstrap_file_path=st.none() | names,
)
compaction_plans = st.builds(
    p.CompactionPlan,
    operations=st.none() | st.lists(operations, max_size=4).map(tuple),
    extra_metadata=optional_map,
    preserve_hoodie_metadata=st.none() | st.booleans(),
    missing_schedule_partitions=st.none() | st.lists(names, max_size=3).map(tuple),
)


@settings(max_examples=60, deadline=None)
@given(compaction_plans)
def test_generated_compaction_plans_round_trip(plan: p.CompactionPlan) -> None:
    assert p.decode_compaction_plan(p.encode_avro(plan), WHERE) == plan


counts = st.integers(0, 2**40)
json_write_stats = st.builds(
    p.WriteStat,
    file_id=names,
    path=st.none() | file_names,
    prev_commit=names,
    partition_path=st.none() | names,
    num_writes=counts,
    num_deletes=counts,
    num_update_writes=counts,
    num_inserts=counts,
    total_write_bytes=counts,
    total_write_errors=counts,
    file_size_in_bytes=counts,
    total_log_records=counts,
    total_log_blocks=counts,
    total_corrupt_log_block=counts,
    total_rollback_blocks=counts,
    total_updated_records_compacted=counts,
    total_log_files_compacted=counts,
    total_log_size_compacted=counts,
    runtime_stats=st.none() | st.fixed_dictionaries({"totalScanTime": counts, "totalUpsertTime": counts}),
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(names, st.lists(json_write_stats, max_size=3).map(tuple), max_size=3), optional_map)
def test_generated_v6_commit_json_round_trips_byte_for_byte(
    stats: dict[str, tuple[p.WriteStat, ...]], extra_metadata: dict[str, str] | None
) -> None:
    metadata = p.CommitMetadata(
        partition_to_write_stats=stats,
        extra_metadata=extra_metadata or {},
        version=None,
        operation_type="UPSERT",
    )
    data = metadata.to_json_bytes()
    decoded = p.decode_commit_metadata(data, WHERE)
    assert decoded == metadata
    assert decoded.to_json_bytes() == data
