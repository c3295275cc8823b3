from __future__ import annotations

import pytest

from maintainer.errors import CorruptFileError
from maintainer.hudi.config.properties import TableConfig, table_config_from_properties
from maintainer.hudi.config.table_properties import HudiTableConfig, MergeMode, TableType
from maintainer.hudi.instants.layout import TimelineLayout


def test_every_entry_is_a_hoodie_key_once() -> None:
    keys = [entry.key for entry in HudiTableConfig.entries()]
    assert len(keys) == len(set(keys)) > 20
    assert all(key.startswith("hoodie.") for key in keys)


def test_defaults_apply_to_absent_keys_and_parsers_to_present_ones() -> None:
    assert HudiTableConfig.TYPE.read({}) is TableType.COPY_ON_WRITE
    assert HudiTableConfig.BASE_FILE_FORMAT.read({"hoodie.table.base.file.format": "orc"}) == "ORC"
    assert HudiTableConfig.POPULATE_META_FIELDS.read({"hoodie.populate.meta.fields": ""}) is True
    assert HudiTableConfig.POPULATE_META_FIELDS.read({"hoodie.populate.meta.fields": "False"}) is False
    assert HudiTableConfig.PARTITION_FIELDS.read({"hoodie.table.partition.fields": "a:string, b"}) == (
        "a",
        "b",
    )
    assert HudiTableConfig.RECORD_MERGE_MODE.read({"hoodie.record.merge.mode": "later"}) is MergeMode.CUSTOM
    assert HudiTableConfig.TIMELINE_LAYOUT_VERSION.read({}) is None


def test_a_bad_value_or_a_missing_required_key_is_a_corrupt_file() -> None:
    with pytest.raises(CorruptFileError, match=r"unknown hoodie\.table\.type 'X'") as info:
        HudiTableConfig.TYPE.read({"hoodie.table.type": "X"}, "t/p")
    assert info.value.where == "t/p"
    with pytest.raises(CorruptFileError, match=r"hoodie\.table\.version is missing") as info:
        HudiTableConfig.VERSION.read({}, "t/p")
    assert info.value.hint
    with pytest.raises(CorruptFileError, match="must be 1 or 2, not '3'"):
        HudiTableConfig.TIMELINE_LAYOUT_VERSION.read({"hoodie.timeline.layout.version": "3"})


def config(version: int, **extra: str) -> TableConfig:
    values = {
        "hoodie.table.name": "t",
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.table.version": str(version),
    }
    return table_config_from_properties({**values, **extra})


def test_the_layout_follows_the_version_unless_declared() -> None:
    assert config(6).timeline_layout is TimelineLayout.V1
    assert config(8).timeline_layout is TimelineLayout.V2
    assert config(8, **{"hoodie.timeline.layout.version": "1"}).timeline_layout is TimelineLayout.V1
