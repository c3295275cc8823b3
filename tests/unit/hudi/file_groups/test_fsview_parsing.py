"""The view's fast name parsing (a listing parsed column-wise) against Hudi's full name
patterns, one name at a time: the same data files with the same fields, on any name."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.hudi.file_groups.datafiles import parse_data_file_name, parse_data_files
from maintainer.hudi.file_groups.filemodel import BaseFile, LogFile
from maintainer.hudi.file_groups.filenames import BASE_FILE_EXTENSIONS, BaseFileName, LogFileName, is_junk
from maintainer.storage.listing import DirListing

P = "p=1"
DIGITS = st.text(alphabet="0129\u0663", min_size=0, max_size=18)
ID = st.text(alphabet="ab-0_.", min_size=1, max_size=6)
TOKEN = st.one_of(st.just("0-1-2"), st.builds("{}-{}-{}".format, DIGITS, DIGITS, DIGITS))


def _expected(name: str, size: int) -> BaseFile | LogFile | None:
    """What parsing one name with the full patterns gives (HUDI.md §2)."""
    if not name.startswith("."):
        base = BaseFileName.parse(name)
        return BaseFile(P, name, size, base.file_id, base.instant_time) if base else None
    if is_junk(name) or name.startswith(".hoodie_partition_metadata"):
        return None
    log = LogFileName.parse(name)
    if log is None or log.suffix != "log" or log.is_cdc:
        return None
    return LogFile(P, name, size, log.file_id, log.instant_time, log.version, log.write_token)


base_names = st.builds(
    "{}_{}_{}{}{}".format,
    ID,
    TOKEN,
    st.one_of(st.just("20240101000000000"), DIGITS),
    st.sampled_from([*sorted(BASE_FILE_EXTENSIONS), ".txt", ".parquet.crc", ""]),
    st.sampled_from(["", "\n"]),
)
log_names = st.builds(
    ".{}_{}.{}.{}{}{}{}".format,
    ID,
    DIGITS,
    st.sampled_from(["log", "archive", "lg"]),
    DIGITS,
    st.one_of(st.just(""), TOKEN.map("_{}".format)),
    st.sampled_from(["", ".cdc", ".crc"]),
    st.sampled_from(["", "\n"]),
)
junk_names = st.sampled_from(
    [".DS_Store", "_SUCCESS", ".hoodie_partition_metadata", "._a_1.log.1_0-1-2", "", ".", "x"]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(base_names, log_names, junk_names), max_size=12))
def test_listing_parses_like_the_full_patterns(names: list[str]) -> None:
    sizes = list(range(len(names)))
    listing = DirListing(
        P, names, [None if s == 0 else s for s in sizes], [False] * len(names), [None] * len(names)
    )
    expected = [f for f in (_expected(n, s) for n, s in zip(names, sizes, strict=True)) if f is not None]
    assert list(parse_data_files(P, listing)) == expected
    assert [parse_data_file_name(P, n, s) for n, s in zip(names, sizes, strict=True)] == [
        _expected(n, s) for n, s in zip(names, sizes, strict=True)
    ]


def test_directories_are_never_data_files() -> None:
    name = "abc-0_0-1-2_20240101000000000.parquet"
    listing = DirListing(P, [name, name], [0, 7], [True, False], [None, None])
    assert parse_data_files(P, listing) == (BaseFile(P, name, 7, "abc-0", "20240101000000000"),)


def test_fast_built_data_files_are_ordinary_frozen_dataclasses() -> None:
    (parsed,) = parse_data_files(P, DirListing(P, [".f-0_5.log.2_1-2-3"], [9], [False], [None]))
    assert parsed == LogFile(P, ".f-0_5.log.2_1-2-3", 9, "f-0", "5", 2, "1-2-3")
    assert hash(parsed) == hash(LogFile(P, ".f-0_5.log.2_1-2-3", 9, "f-0", "5", 2, "1-2-3"))
    assert parsed.path == f"{P}/.f-0_5.log.2_1-2-3" and parsed.log_order() == ("5", 2, "1-2-3")
    assert repr(parsed).startswith("LogFile(partition='p=1'")


ASCII_DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=4)
HUDI_ID = st.text(alphabet="abf0-", min_size=1, max_size=8)
HUDI_TOKEN = st.builds("{}-{}-{}".format, ASCII_DIGITS, ASCII_DIGITS, ASCII_DIGITS)
INSTANT = st.text(alphabet="0123456789", min_size=14, max_size=17)
hudi_base_names = st.builds(
    "{}_{}_{}{}".format, HUDI_ID, HUDI_TOKEN, INSTANT, st.sampled_from(sorted(BASE_FILE_EXTENSIONS))
)
hudi_log_names = st.builds(
    ".{}_{}.log.{}{}".format,
    HUDI_ID,
    st.one_of(INSTANT, st.just("")),
    ASCII_DIGITS,
    st.one_of(st.just(""), HUDI_TOKEN.map("_{}".format)),
)
# what sits beside data files in real partitions: checksums, CDC logs, archived logs, the
# partition's metadata, OS litter
beside_data_files = st.one_of(
    hudi_base_names.map(".{}.crc".format),
    hudi_log_names.map("{}.cdc".format),
    hudi_log_names.map(lambda name: name.replace(".log.", ".archive.")),
    st.sampled_from(
        [".hoodie_partition_metadata", ".hoodie_partition_metadata.parquet", "_SUCCESS", ".DS_Store"]
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(hudi_base_names, hudi_log_names, beside_data_files), max_size=15))
def test_hudi_written_partitions_parse_like_the_full_patterns(names: list[str]) -> None:
    sizes = list(range(1, len(names) + 1))
    listing = DirListing(P, names, sizes, [False] * len(names), [None] * len(names))
    expected = [f for f in (_expected(n, s) for n, s in zip(names, sizes, strict=True)) if f is not None]
    assert list(parse_data_files(P, listing)) == expected
