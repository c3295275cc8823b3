"""``hoodie.properties``: Java properties format, checksum, typed config and its refusals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maintainer.errors import CorruptFileError, TableFormatError, UnsupportedTableError
from maintainer.hudi.config.properties import (
    MergeMode,
    TableType,
    format_java_properties,
    parse_java_properties,
    parse_table_config,
    table_checksum,
    table_config_from_properties,
    verify_checksum,
)


def props(**overrides: str) -> dict[str, str]:
    values = {
        "hoodie.table.name": "trips",
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.table.version": "6",
        "hoodie.table.partition.fields": "city",
        "hoodie.table.recordkey.fields": "uuid",
        "hoodie.table.precombine.field": "ts",
    }
    values.update({k.replace("__", "."): v for k, v in overrides.items()})
    return values


def encoded(values: dict[str, str]) -> bytes:
    """As Hudi writes it: the checksum last (unless the test gives one)."""
    if "hoodie.table.checksum" not in values and values.get("hoodie.table.name"):
        checksum = table_checksum(values.get("hoodie.database.name", ""), values["hoodie.table.name"])
        values = {**values, "hoodie.table.checksum": str(checksum)}
    return format_java_properties(values, ("Updated at 2025-01-01T00:00:00Z",)).encode("latin-1")


# -- Java properties format -------------------------------------------------------------


def test_escaped_colons_and_equals() -> None:
    text = 'hoodie.table.create.schema={"type"\\:"record","a\\=b"\\:1}\nkey\\=with\\:seps=v\n'
    assert parse_java_properties(text) == {
        "hoodie.table.create.schema": '{"type":"record","a=b":1}',
        "key=with:seps": "v",
    }


def test_unicode_escapes() -> None:
    assert parse_java_properties("k=caf\\u00E9 \\u4e2d\n") == {"k": "café 中"}


def test_malformed_unicode_escape_is_a_corrupt_file() -> None:
    with pytest.raises(CorruptFileError, match=r"cannot be parsed: malformed \\uxxxx") as info:
        parse_java_properties("k=\\u12G4\n", "t/.hoodie/hoodie.properties")
    assert info.value.where == "t/.hoodie/hoodie.properties"


def test_line_continuations() -> None:
    text = "k=first \\\n    second\\\n\tthird\nnext=1\nodd=ends\\\\\nlast=x\\"
    assert parse_java_properties(text) == {
        "k": "first secondthird",
        "next": "1",
        "odd": "ends\\",
        "last": "x",
    }


def test_continuation_ended_by_an_empty_line() -> None:
    assert parse_java_properties("a=b\\\n\nc=d\n") == {"a": "b", "c": "d"}


def test_comments_blank_lines_and_separators() -> None:
    text = "#Updated at 2025\n! bang comment\n\n   \nspaced = v1\ncolon:v2\nwhite v3\nempty=\nnovalue\n"
    assert parse_java_properties(text) == {
        "spaced": "v1",
        "colon": "v2",
        "white": "v3",
        "empty": "",
        "novalue": "",
    }


def test_comment_marker_inside_continuation_is_data() -> None:
    assert parse_java_properties("k=a\\\n#b\n") == {"k": "a#b"}


def test_trailing_whitespace_belongs_to_the_value_and_only_newlines_end_lines() -> None:
    text = "a=b  \r\nc=d\x85e\rf=g\\ \n"
    assert parse_java_properties(text) == {"a": "b  ", "c": "d\x85e", "f": "g "}


def test_simple_escapes() -> None:
    assert parse_java_properties("k=a\\tb\\nc\\\\d\\qe\n") == {"k": "a\tb\nc\\dq" + "e"}


keys = st.text(st.characters(min_codepoint=1, max_codepoint=0x2FFF, exclude_categories=["Cs"]), min_size=1)
values = st.text(st.characters(min_codepoint=1, max_codepoint=0x2FFF, exclude_categories=["Cs"]))


@given(st.dictionaries(keys, values, max_size=8))
def test_format_then_parse_round_trips(mapping: dict[str, str]) -> None:
    text = format_java_properties(mapping, ("comment",))
    assert parse_java_properties(text) == mapping
    text.encode("ascii")  # Java's store writes ASCII only


# -- checksum ---------------------------------------------------------------------------


def test_checksum_is_crc32_of_database_dot_table() -> None:
    # hoodie.table.checksum of the v8 trips fixture (database "default", table v8_trips_8i3u1d)
    assert table_checksum("default", "v8_trips_8i3u1d") == 1197752875
    assert table_checksum("", "t") != table_checksum("db", "t")


def test_checksum_mismatch_is_corrupt() -> None:
    raw = props(hoodie__table__checksum="12345")
    with pytest.raises(CorruptFileError, match="checksum"):
        verify_checksum(raw, "x/hoodie.properties")
    with pytest.raises(CorruptFileError, match="checksum"):
        parse_table_config(encoded(raw))


def test_checksum_match_is_accepted_and_absence_only_before_version_4() -> None:
    verify_checksum(props(hoodie__table__version="3"))
    good = props(hoodie__table__checksum=str(table_checksum("", "trips")))
    assert parse_table_config(encoded(good)).name == "trips"
    with_db = props(hoodie__database__name="db", hoodie__table__checksum=str(table_checksum("db", "trips")))
    assert parse_table_config(encoded(with_db)).database == "db"


# -- typed config -----------------------------------------------------------------------


def test_v6_config() -> None:
    config = parse_table_config(encoded(props()))
    assert config.version == 6 and config.timeline_layout == 1
    assert config.table_type is TableType.MERGE_ON_READ and config.is_mor
    assert config.timeline_dir == ".hoodie" and config.archive_dir == ".hoodie/archived"
    assert config.partition_fields == ("city",) and config.is_partitioned
    assert config.ordering_fields == ("ts",)
    assert config.merge_mode is MergeMode.EVENT_TIME_ORDERING
    assert config.base_file_extension == ".parquet"
    assert not config.has_metadata_table


def test_v8_config_defaults_to_layout_2() -> None:
    raw = props(hoodie__table__version="8", hoodie__table__metadata__partitions="files,column_stats")
    config = table_config_from_properties(raw)
    assert config.timeline_layout == 2
    assert config.timeline_dir == ".hoodie/timeline"
    assert config.archive_dir == ".hoodie/timeline/history"
    assert config.metadata_partitions == ("files", "column_stats") and config.has_metadata_table


def test_custom_keygen_partition_fields_drop_their_type() -> None:
    config = table_config_from_properties(props(hoodie__table__partition__fields="a:simple,b:timestamp"))
    assert config.partition_fields == ("a", "b")


def test_commit_time_ordering_payload() -> None:
    raw = props(
        hoodie__compaction__payload__class="org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"
    )
    assert table_config_from_properties(raw).merge_mode is MergeMode.COMMIT_TIME_ORDERING
    explicit = props(hoodie__record__merge__mode="COMMIT_TIME_ORDERING")
    assert table_config_from_properties(explicit).merge_mode is MergeMode.COMMIT_TIME_ORDERING


@pytest.mark.parametrize("version", ["5", "7", "10"])
def test_unsupported_version_refused(version: str) -> None:
    with pytest.raises(UnsupportedTableError) as info:
        parse_table_config(
            encoded(props(hoodie__table__version=version)), where="t/.hoodie/hoodie.properties"
        )
    message = str(info.value)
    assert f"table version {version}" in message
    assert "6, 8, 9" in message
    assert info.value.where == "t/.hoodie/hoodie.properties"


@pytest.mark.parametrize("data", [b"", b"\n\n", b"#only a comment\n"])
def test_empty_file_is_corrupt(data: bytes) -> None:
    with pytest.raises(CorruptFileError, match="empty"):
        parse_table_config(data, where="t/.hoodie/hoodie.properties")


@pytest.mark.parametrize(
    "raw",
    [
        {"hoodie.table.name": "t"},  # version missing
        {"hoodie.table.version": "6"},  # name missing
        {"hoodie.table.name": "t", "hoodie.table.version": "six"},
        {"hoodie.table.name": "t", "hoodie.table.version": "6", "hoodie.table.type": "WHATEVER"},
        {"hoodie.table.name": "t", "hoodie.table.version": "8", "hoodie.timeline.layout.version": "x"},
    ],
)
def test_incomplete_or_garbled_file_is_corrupt(raw: dict[str, str]) -> None:
    with pytest.raises(CorruptFileError):
        parse_table_config(encoded(raw))


def test_malformed_escape_in_file_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="cannot be parsed"):
        parse_table_config(b"hoodie.table.name=\\uZZZZ\n", where="t/.hoodie/hoodie.properties")


def test_errors_are_table_format_errors() -> None:
    assert issubclass(CorruptFileError, TableFormatError)
    assert issubclass(UnsupportedTableError, TableFormatError)


@pytest.mark.parametrize("version", ["4", "6", "8", "9"])
def test_missing_checksum_is_a_cut_file_on_versions_that_write_it(version: str) -> None:
    """Hudi writes the checksum as the last line: without it the file was cut short (and may
    have lost, e.g., the partition fields, which would make a partitioned table look flat)."""
    raw = props(hoodie__table__version=version)
    with pytest.raises(CorruptFileError, match=r"checksum is missing.*cut short") as info:
        verify_checksum(raw, "t/.hoodie/hoodie.properties")
    assert info.value.where == "t/.hoodie/hoodie.properties"
    assert "hoodie.properties.backup" in (info.value.hint or "")


@pytest.mark.parametrize("value", ["+1", " 1", "1 ", "0x1", "", "99999999999999999999"])
def test_checksum_must_parse_as_a_java_long(value: str) -> None:
    """``Long.parseLong`` semantics: a sign is fine, whitespace, hex or overflow are not."""
    name_checksum = table_checksum("", "trips")
    text = value.replace("1", str(name_checksum)) if value != "99999999999999999999" else value
    raw = props(hoodie__table__checksum=text)
    if text == f"+{name_checksum}":
        verify_checksum(raw)
        return
    with pytest.raises(CorruptFileError, match="checksum"):
        verify_checksum(raw)


@pytest.mark.parametrize("key", ["hoodie.table.type", "hoodie.table.version"])
def test_a_required_key_missing_is_corrupt(key: str) -> None:
    raw = {k: v for k, v in props().items() if k != key}
    with pytest.raises(CorruptFileError, match=f"{key}"):
        parse_table_config(encoded(raw), "t/.hoodie/hoodie.properties")
