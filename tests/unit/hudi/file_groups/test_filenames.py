"""Data-file names: every form parses and formats back byte-identically."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from maintainer.hudi.file_groups.filenames import (
    BASE_FILE_EXTENSIONS,
    BaseFileName,
    LogFileName,
    MarkerName,
    MarkerType,
    WriteToken,
    is_data_file_name,
    is_junk,
    is_partition_metadata,
    new_file_id,
)

DIGITS = "0123456789"
instant_times = st.one_of(
    st.text(DIGITS, min_size=14, max_size=14), st.text(DIGITS, min_size=17, max_size=17)
)
write_tokens = st.builds(
    lambda a, b, c: f"{a}-{b}-{c}",
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.integers(0, 10**9),
)
file_ids = st.one_of(
    st.uuids().map(lambda u: f"{u}-{0}"),
    st.builds(lambda u, n: f"{u}-{n}", st.uuids(), st.integers(0, 5000)),
    st.text("abcdef0123456789-", min_size=1, max_size=40),
)
extensions = st.sampled_from(sorted(BASE_FILE_EXTENSIONS))


@given(file_ids, write_tokens, instant_times, extensions)
def test_base_file_name_round_trips(file_id: str, token: str, instant: str, ext: str) -> None:
    name = f"{file_id}_{token}_{instant}{ext}"
    parsed = BaseFileName.parse(name)
    assert parsed == BaseFileName(file_id, token, instant, ext)
    assert parsed.name == name
    assert str(parsed) == name
    assert is_data_file_name(name)


@given(
    file_ids,
    instant_times,
    st.integers(1, 10**5),
    st.one_of(st.none(), write_tokens),
    st.booleans(),
)
def test_log_file_name_round_trips(
    file_id: str, instant: str, version: int, token: str | None, cdc: bool
) -> None:
    log = LogFileName(file_id, instant, version, token, "log", cdc and token is not None)
    parsed = LogFileName.parse(log.name)
    assert parsed == log
    assert parsed.name == log.name


@given(st.integers(1, 10**4), st.one_of(st.none(), write_tokens))
def test_archive_log_file_name_round_trips(version: int, token: str | None) -> None:
    # v6 archived timeline: ".commits_.archive.<N>_<token>" (empty instant)
    suffix = f"_{token}" if token else ""
    name = f".commits_.archive.{version}{suffix}"
    parsed = LogFileName.parse(name)
    assert parsed == LogFileName("commits", "", version, token, "archive", False)
    assert parsed.name == name
    assert not is_data_file_name(name)


@given(write_tokens)
def test_write_token_round_trips(token: str) -> None:
    parsed = WriteToken.parse(token)
    assert str(parsed) == token
    assert [parsed.task_partition_id, parsed.stage_id, parsed.task_attempt_id] == [
        int(p) for p in token.split("-")
    ]


@given(
    st.one_of(
        st.builds(lambda f, t, i, e: f"{f}_{t}_{i}{e}", file_ids, write_tokens, instant_times, extensions),
        st.builds(lambda f, i, t: f".{f}_{i}.log.1_{t}", file_ids, instant_times, write_tokens),
    ),
    st.sampled_from(list(MarkerType)),
)
def test_marker_name_round_trips(data_file: str, marker_type: MarkerType) -> None:
    name = f"{data_file}.marker.{marker_type.value}"
    parsed = MarkerName.parse(name)
    assert parsed == MarkerName(data_file, marker_type)
    assert parsed.name == name


def test_real_hudi_names_parse() -> None:
    base = BaseFileName.parse("036ded81-9ed4-479f-bcea-7145dfa0079b-0_0-986-2792_20251220210108078.parquet")
    assert base == BaseFileName(
        "036ded81-9ed4-479f-bcea-7145dfa0079b-0", "0-986-2792", "20251220210108078", ".parquet"
    )
    log = LogFileName.parse(".6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0_20251220210127080.log.1_0-1072-3078")
    assert log == LogFileName("6e1d5cc4-c487-487d-abbe-fe9b30b1c0cc-0", "20251220210127080", 1, "0-1072-3078")
    cdc = LogFileName.parse(".abc-0_20240101000000000.log.2_1-0-1.cdc")
    assert cdc is not None and cdc.is_cdc and cdc.version == 2


@pytest.mark.parametrize(
    "name",
    [
        "abc-0_1-0-1_20240101000000000.txt",  # unknown extension
        "abc-0_1-0-1_2024.parquet",  # instant time too short
        "abc-0_20240101000000000.parquet",  # no write token
        ".hoodie_partition_metadata",
        "README.md",
        ".abc-0_20240101000000000.log",  # no version
        ".abc-0_20240101000000000.log.1_1-0",  # bad token
    ],
)
def test_non_hudi_names_are_not_data_files(name: str) -> None:
    assert not is_data_file_name(name)


@pytest.mark.parametrize(
    "name", [".DS_Store", "._abc-0_1-0-1_20240101000000000.parquet", "x.parquet.crc", "__MACOSX", "_SUCCESS"]
)
def test_junk_names(name: str) -> None:
    assert is_junk(name)


def test_data_file_is_not_junk() -> None:
    assert not is_junk("abc-0_1-0-1_20240101000000000.parquet")
    assert not is_junk(".abc-0_20240101000000000.log.1_0-1-2")


def test_partition_metadata_names() -> None:
    assert is_partition_metadata(".hoodie_partition_metadata")
    assert is_partition_metadata(".hoodie_partition_metadata.parquet")
    assert not is_partition_metadata("hoodie_partition_metadata")


def test_log_sort_key_orders_instant_then_version_then_token() -> None:
    names = [
        ".f-0_20240102000000000.log.1_0-1-1",
        ".f-0_20240101000000000.log.2_0-1-1",
        ".f-0_20240101000000000.log.10_0-1-1",
        ".f-0_20240101000000000.log.1_1-0-1",
        ".f-0_20240101000000000.log.1_0-9-9",
        ".f-0_20240101000000000.log.1",
    ]
    parsed = [LogFileName.parse(n) for n in names]
    ordered = sorted((p for p in parsed if p), key=LogFileName.sort_key)
    assert [p.name for p in ordered] == [
        ".f-0_20240101000000000.log.1",
        ".f-0_20240101000000000.log.1_0-9-9",
        ".f-0_20240101000000000.log.1_1-0-1",
        ".f-0_20240101000000000.log.2_0-1-1",
        ".f-0_20240101000000000.log.10_0-1-1",
        ".f-0_20240102000000000.log.1_0-1-1",
    ]


def test_new_file_id_has_index_suffix() -> None:
    assert new_file_id(3, prefix="abc") == "abc-3"
    generated = new_file_id()
    assert generated.endswith("-0") and len(generated) == 38
