"""The one mapping between payload dataclasses and Avro records (maintainer.hudi.payloads.records)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import pytest

from maintainer.hudi import payloads as p
from maintainer.hudi.payloads.records import AvroRecord, avro, plan_of
from maintainer.hudi.payloads.schemas import field_names
from tests.unit.hudi.payloads import samples

PAYLOAD_CLASSES = sorted(
    (value for value in vars(p).values() if isinstance(value, type) and issubclass(value, AvroRecord)),
    key=lambda cls: cls.__name__,
)


def models_in(value: Any) -> Iterator[AvroRecord]:
    """Every payload model in ``value``, nested ones included."""
    if isinstance(value, AvroRecord):
        yield value
        for declared in fields(value):  # type: ignore[arg-type]
            yield from models_in(getattr(value, declared.name))
    elif isinstance(value, tuple):
        for item in value:
            yield from models_in(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from models_in(item)


def sample_models() -> dict[type[Any], list[AvroRecord]]:
    found: dict[type[Any], list[AvroRecord]] = {}
    for make in samples.AVRO_SAMPLES.values():
        for model in models_in(make()):
            found.setdefault(type(model), []).append(model)
    return found


@pytest.mark.parametrize("cls", PAYLOAD_CLASSES, ids=lambda cls: cls.__name__)
def test_every_payload_class_round_trips_through_its_record(cls: type[AvroRecord]) -> None:
    models = sample_models().get(cls)
    assert models, f"no sample holds a {cls.__name__}"
    for model in models:
        record = model.to_record()
        assert cls.from_record(record) == model
        assert cls.from_record(record).to_record() == record


@pytest.mark.parametrize("cls", PAYLOAD_CLASSES, ids=lambda cls: cls.__name__)
def test_every_payload_class_maps_exactly_the_fields_of_its_hudi_schema(cls: type[AvroRecord]) -> None:
    assert set(plan_of(cls).keys) == set(field_names(f"Hoodie{cls.__name__}"))


def test_records_hold_lists_and_dicts_and_nested_records() -> None:
    record = samples.cleaner_plan().to_record()
    assert record["earliestInstantToRetain"] == {
        "timestamp": "20251220210108078",
        "action": "commit",
        "state": "COMPLETED",
    }
    assert record["partitionsToBeDeleted"] == ["city=gone"]
    infos = record["filePathsToBeDeletedPerPartition"]
    assert infos[""] == [] and infos["city=chennai"][0]["isBootstrapBaseFile"] is False
    model = p.CleanerPlan.from_record(record)
    assert model.partitions_to_be_deleted == ("city=gone",)
    assert model.file_paths_to_be_deleted_per_partition is not None
    assert isinstance(model.file_paths_to_be_deleted_per_partition["city=chennai"], tuple)


def test_a_field_missing_from_an_older_schemas_record_gets_its_missing_value() -> None:
    record = samples.cleaner_plan().to_record()
    for name in (
        "version",
        "lastCompletedCommitTimestamp",
        "extraMetadata",
        "filePathsToBeDeletedPerPartition",
    ):
        del record[name]
    plan = p.CleanerPlan.from_record(record)
    assert plan.version == 1, "Hudi's default for a plan without a version, not the version we write"
    assert plan.last_completed_commit_timestamp == ""
    assert plan.extra_metadata is None and plan.file_paths_to_be_deleted_per_partition is None
    entry = p.CleanFileInfo.from_record({"filePath": "/t/p/f.parquet"})
    assert entry.is_bootstrap_base_file is None


def test_a_missing_required_field_raises_key_error() -> None:
    record = samples.rollback_metadata().to_record()
    del record["commitsRollback"]
    with pytest.raises(KeyError, match="commitsRollback"):
        p.RollbackMetadata.from_record(record)


def test_null_is_kept_in_optional_fields_and_refused_in_required_arrays() -> None:
    plan = p.CompactionPlan(operations=None, strategy=None, missing_schedule_partitions=None)
    record = plan.to_record()
    assert record["operations"] is None and record["strategy"] is None
    assert p.CompactionPlan.from_record(record) == plan
    broken = {**samples.savepoint_metadata().to_record(), "partitionMetadata": {"p": {"partitionPath": "p"}}}
    with pytest.raises(KeyError):
        p.SavepointMetadata.from_record(broken)
    with pytest.raises(TypeError):
        p.SavepointPartitionMetadata.from_record({"partitionPath": "p", "savepointDataFile": None})


def test_own_converters_replace_the_typed_ones() -> None:
    operation = p.CompactionOperation(base_instant_time="1", file_id="f", metrics={"TOTAL_IO_MB": 2})
    metrics = operation.to_record()["metrics"]
    assert metrics == {"TOTAL_IO_MB": 2.0} and isinstance(metrics["TOTAL_IO_MB"], float)
    stat = p.WriteStat(file_id="f", runtime_stats={"totalScanTime": 3})
    assert stat.to_record()["runtimeStats"] == {
        "totalScanTime": 3,
        "totalCreateTime": None,
        "totalUpsertTime": None,
    }
    assert p.WriteStat(file_id="f").to_record()["runtimeStats"] is None
    clean = {**samples.clean_metadata().to_record(), "partitionMetadata": None}
    assert p.CleanMetadata.from_record(clean).partition_metadata == {}


def test_unknown_fields_are_kept_in_order_where_declared_and_ignored_elsewhere() -> None:
    record = {**samples.write_stat().to_record(), "recordsStats": {"val": None}, "future": 1}
    stat = p.WriteStat.from_record(record)
    assert list(stat.extra) == ["recordsStats", "future"]
    assert "future" not in stat.to_record()
    instant = p.InstantInfo.from_record({"commitTime": "1", "action": "commit", "future": 1})
    assert instant == p.InstantInfo(commit_time="1", action="commit")


def test_a_complete_record_and_one_with_extra_fields_decode_alike() -> None:
    metadata = samples.commit_metadata()
    record = metadata.to_record()
    assert p.CommitMetadata.from_record(record) == metadata
    with_extra = p.CommitMetadata.from_record({**record, "futureTopLevel": [1]})
    assert with_extra.extra == {"futureTopLevel": [1]}
    assert with_extra.partition_to_write_stats == metadata.partition_to_write_stats


@dataclass(frozen=True, slots=True, kw_only=True)
class _One(AvroRecord):
    only: str | None = field(default=None, metadata=avro("only"))


def test_a_class_of_one_field() -> None:
    assert _One(only="x").to_record() == {"only": "x"}
    assert _One.from_record({"only": "x"}) == _One(only="x")
    assert _One.from_record({}) == _One()


class _NotAPayload:
    pass


@dataclass(frozen=True, slots=True, kw_only=True)
class _WithSet(AvroRecord):
    names: set[str] = field(default_factory=set, metadata=avro("names"))


@dataclass(frozen=True, slots=True, kw_only=True)
class _WithIntKeys(AvroRecord):
    sizes: Mapping[int, str] = field(default_factory=dict, metadata=avro("sizes"))


@dataclass(frozen=True, slots=True, kw_only=True)
class _WithUnion(AvroRecord):
    value: int | str = field(default=0, metadata=avro("value"))


@dataclass(frozen=True, slots=True, kw_only=True)
class _WithForeignClass(AvroRecord):
    nested: _NotAPayload | None = field(default=None, metadata=avro("nested"))


@dataclass(frozen=True, slots=True, kw_only=True)
class _WithUnmappedField(AvroRecord):
    name: str = field(default="", metadata=avro("name"))
    forgotten: int = 0


@pytest.mark.parametrize(
    ("cls", "says"),
    [
        (_WithSet, r"_WithSet\.names: cannot map set\[str\]"),
        (_WithIntKeys, r"_WithIntKeys\.sizes: cannot map"),
        (_WithUnion, r"_WithUnion\.value: cannot map the union"),
        (_WithForeignClass, r"_WithForeignClass\.nested: cannot map .*_NotAPayload"),
        (_WithUnmappedField, r"_WithUnmappedField\.forgotten has no Avro field"),
    ],
)
def test_an_unknown_type_or_an_unmapped_field_is_refused(cls: type[AvroRecord], says: str) -> None:
    with pytest.raises(TypeError, match=says):
        cls().to_record()
    with pytest.raises(TypeError, match=says):
        cls.from_record({})


def test_a_required_field_has_no_missing_value() -> None:
    with pytest.raises(ValueError, match="required"):
        avro("name", required=True, missing="")
