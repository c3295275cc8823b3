"""The path and name checks every approved action goes through: their string-only fast forms
agree with the plain definitions on tricky inputs."""

from __future__ import annotations

import itertools
import re

import pytest

from maintainer.artifact.model.archive import ArchiveInstant
from maintainer.hudi.file_groups.filenames import BaseFileName, LogFileName, is_data_file_name
from maintainer.services.common.checks import relative_path_problem, state_file_checks

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/")


def plain_relative_path_problem(path: object) -> str | None:
    """The definition: relative, every part non-empty and not '.'/'..', not under .hoodie/."""
    if not isinstance(path, str) or not path:
        return "not a path"
    if path.startswith("/") or _SCHEME.match(path):
        return "outside the table (an absolute path)"
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "outside the table (not a normalized relative path: '.', '..' or '//')"
    if parts[0] == ".hoodie":
        return "inside .hoodie/, not a data path"
    return None


PIECES = ["a", ".", "..", "", ".hoodie", ".x", "x.", "..x", "s3:", "file:", "p=1", "C:"]


def all_paths() -> list[object]:
    joined = {"/".join(parts) for n in (1, 2, 3) for parts in itertools.product(PIECES, repeat=n)}
    extra = ["s3://b/t/p/f.parquet", "file:/t/f", "x:/y", "a/b:/c", "9a:/b", "a/./b", "a/../b"]
    return [*sorted(joined), *extra, None, 3, b"a"]


def test_relative_path_problem_is_the_plain_definition() -> None:
    differ = [p for p in all_paths() if relative_path_problem(p) != plain_relative_path_problem(p)]
    assert differ == []


NAMES = [
    "abc-0_1-0-1_20240101000000000.parquet",
    "abc-0_1-0-1_20240101000000.parquet",
    "abc-0_1-0-1_2024010100000.parquet",
    "abc-0_1-0-1_20240101000000000.orc",
    "abc-0_1-0-1_20240101000000000.txt",
    "abc_0_1-0-1_20240101000000000.parquet",
    ".abc-0_20240101000000000.log.1_0-1-1",
    ".abc-0_20240101000000000.log.1",
    ".abc-0_.log.1_0-1-1",
    ".abc-0_20240101000000000.log.1_0-1-1.cdc",
    ".abc-0_20240101000000000.archive.1_0-1-1",
    ".a_b_20240101000000000.log.2_0-1-1",
    ".abc-0_2024.log.x_0-1-1",
    ".hoodie_partition_metadata",
    "abc-0_1-0-1_２０２４０１０１０００００００００.parquet",
    "",
]


@pytest.mark.parametrize("name", NAMES)
def test_is_data_file_name_is_the_full_parse(name: str) -> None:
    log = LogFileName.parse(name)
    expected = BaseFileName.parse(name) is not None or (log is not None and log.suffix == "log")
    assert is_data_file_name(name) is expected


def test_a_state_file_named_with_an_impossible_date_is_a_failed_check_not_an_error() -> None:
    action = ArchiveInstant(
        target="20260101000000000",
        reason="r",
        action="commit",
        state_files=("20260101000000000.commit", "20261301000000000.commit.requested", "hoodie.properties"),
    )
    problems = [problem for _, _, problem in state_file_checks(action)]
    assert problems[0] is None
    assert problems[1] is not None and "is not a date and time (month must be in 1..12)" in problems[1]
    assert problems[2] == "not an instant file name"
