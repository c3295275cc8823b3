"""Secondary index keys (Hudi's ``SecondaryIndexKeyUtils``) and their check against the latest
records."""

from __future__ import annotations

import pytest

from maintainer.hudi.metadata.findings import REBUILD_HINT
from maintainer.hudi.metadata.latest_records import LatestRecords
from maintainer.hudi.metadata.records import MetadataRecord
from maintainer.hudi.metadata.secondary_index import (
    check_secondary_index,
    escape,
    java_string,
    secondary_index_columns,
    secondary_index_key,
    split_key,
    unescape,
)

INDEX = "secondary_index_city_idx"


@pytest.mark.parametrize(
    ("value", "record_key", "key"),
    [
        ("Paris", "k1", "Paris$k1"),
        (None, "k2", "\0$k2"),
        ("a$b", "c\\d", "a\\$b$c\\\\d"),
        ("", "k\0", "$k\\\0"),
    ],
)
def test_keys_are_escaped_and_split_as_hudi_does(value: str | None, record_key: str, key: str) -> None:
    assert secondary_index_key(value, record_key) == key
    assert split_key(key) == (value, record_key)


def test_escape_round_trips_and_a_key_without_separator_does_not_split() -> None:
    for text in ("plain", "$$", "\\", "\\$\0", "x\0y"):
        assert unescape(escape(text)) == text
    assert unescape("\0") is None
    assert split_key("no\\$separator") is None


def test_values_are_written_as_java_writes_them() -> None:
    assert java_string("x") == "x" and java_string(None) is None
    assert java_string(True) == "true" and java_string(19737) == "19737"
    with pytest.raises(ValueError, match="float"):
        java_string(1.5)


def test_only_indexes_over_one_column_itself_are_checked() -> None:
    definitions = {
        INDEX: {"sourceFields": ["city"], "indexFunction": "identity"},
        "secondary_index_b": {"sourceFields": ["a", "b"], "indexFunction": "identity"},
        "secondary_index_c": {"sourceFields": ["c"], "indexFunction": "upper"},
    }
    names = [INDEX, "secondary_index_b", "secondary_index_c", "secondary_index_none"]
    assert secondary_index_columns(names, definitions) == {INDEX: "city"}


def entry(deleted: bool = False) -> MetadataRecord:
    return {"key": "", "type": 7, "SecondaryIndexMetadata": {"isDeleted": deleted}}


LATEST = LatestRecords(
    {"k1": {("p=1", "fg1")}, "k2": {("p=2", "fg2")}},
    {"city": [("k1", "Paris", ("p=1", "fg1")), ("k2", None, ("p=2", "fg2"))]},
)


def test_an_index_of_every_record_passes() -> None:
    records = {"Paris$k1": entry(), "\0$k2": entry(), "Rome$k9": entry(deleted=True)}
    assert check_secondary_index(INDEX, "city", records, LATEST) == ([], 2, None)


def test_missing_and_extra_entries_are_named() -> None:
    records = {"Paris$k1": entry(deleted=True), "Lyon$k1": entry()}
    findings, compared, why = check_secondary_index(INDEX, "city", records, LATEST)
    assert compared == 2 and why is None
    described = sorted(f.describe() for f in findings)
    assert len(described) == 3
    assert described[0].startswith(f"{INDEX}: key 'Lyon$k1': indexes record 'k1' under city = 'Lyon'")
    assert described[1].startswith(f"{INDEX}: p=1/fg1: record 'k1' with city = 'Paris' is not indexed")
    assert described[2].startswith(f"{INDEX}: p=2/fg2: record 'k2' with city = None is not indexed")
    assert all(d.endswith(f"({REBUILD_HINT})") for d in described)


def test_columns_of_other_types_or_absent_are_not_compared() -> None:
    floats = LatestRecords({"k1": {("", "fg")}}, {"price": [("k1", 1.5, ("", "fg"))]})
    findings, compared, why = check_secondary_index(INDEX, "price", {}, floats)
    assert findings == [] and compared == 0 and why is not None and "float" in why
    assert (
        check_secondary_index(INDEX, "absent", {}, floats)[2] == f"{INDEX} (the data has no column 'absent')"
    )
