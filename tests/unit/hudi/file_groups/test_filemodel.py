"""The checked constructors of file slices and file groups: what they accept, and each
invariant they refuse to break (a file of another file group or partition, a base file at
another instant, a log file twice or out of Hudi's log order, slices not strictly increasing)."""

from __future__ import annotations

import pytest

from maintainer.hudi.file_groups.filemodel import BaseFile, FileGroup, FileSlice, LogFile

P, FG = "p=1", "f1-0"
T1, T2, T3 = "20240101000001000", "20240101000002000", "20240101000003000"


def base(instant: str = T1, file_id: str = FG, partition: str = P) -> BaseFile:
    return BaseFile(partition, f"{file_id}_0-1-2_{instant}.parquet", 100, file_id, instant)


def log(
    instant: str = T1, version: int = 1, token: str | None = "0-1-2", file_id: str = FG, partition: str = P
) -> LogFile:
    name = f".{file_id}_{instant}.log.{version}" + (f"_{token}" if token else "")
    return LogFile(partition, name, 10, file_id, instant, version, token)


def file_slice(instant: str = T1, file_id: str = FG, partition: str = P) -> FileSlice:
    return FileSlice(partition, file_id, instant, base(instant, file_id, partition))


def test_a_slice_holds_its_base_file_and_its_log_files_in_log_order() -> None:
    logs = (log(T1, 1, None), log(T1, 1), log(T1, 2), log(T2, 1))
    made = FileSlice(P, FG, T1, base(T1), logs)
    assert made.files == (base(T1), *logs) and made.total_size == 140
    assert FileSlice(P, FG, T2, None).is_empty  # a pending compaction's slice, no file yet
    assert log(T1, 1, None).log_order() == (T1, 1, "") < log(T1, 1).log_order()
    assert base(T1, partition="").path == base(T1).name and log().path == f"{P}/{log().name}"


@pytest.mark.parametrize(
    ("base_file", "logs", "refused"),
    [
        (base(T1, file_id="f2-0"), (), "file group f1-0"),
        (base(T1, partition="q=2"), (), "file group f1-0"),
        (base(T2), (), "base instant"),
        (log(T1), (), "must be a BaseFile"),
        (None, (log(file_id="f2-0"),), "file group f1-0"),
        (None, (log(partition="q=2"),), "file group f1-0"),
        (None, (log(), log()), "twice"),
        (None, (log(T2), log(T1)), "log order"),
        (None, (log(T1, 2), log(T1, 1)), "log order"),
        (None, (log(T1, 1, "1-0-1"), log(T1, 1, "0-1-2")), "log order"),
        (None, (base(T1),), "must be LogFiles"),
    ],
    ids=[
        "base-of-another-file-id",
        "base-of-another-partition",
        "base-at-another-instant",
        "log-as-base",
        "log-of-another-file-id",
        "log-of-another-partition",
        "log-twice",
        "logs-by-instant",
        "logs-by-version",
        "logs-by-token",
        "base-as-log",
    ],
)
def test_a_slice_refuses(base_file: object, logs: tuple[object, ...], refused: str) -> None:
    with pytest.raises(ValueError, match=refused):
        FileSlice(P, FG, T1, base_file, logs)  # type: ignore[arg-type]


def test_a_group_holds_its_slices_oldest_first() -> None:
    group = FileGroup(P, FG, (file_slice(T1), file_slice(T3)))
    assert group.latest_slice == file_slice(T3)
    assert group.slices_newest_first() == [file_slice(T3), file_slice(T1)]
    assert FileGroup(P, FG, ()).latest_slice is None


@pytest.mark.parametrize(
    ("slices", "refused"),
    [
        ((file_slice(T1), file_slice(T1)), "strictly increase"),
        ((file_slice(T2), file_slice(T1)), "strictly increase"),
        ((file_slice(T1), file_slice(T2, file_id="f2-0")), "not one of file group f1-0"),
        ((file_slice(T1, partition="q=2"),), "not one of file group f1-0"),
    ],
    ids=[
        "duplicate-base-instant",
        "decreasing-base-instants",
        "slice-of-another-file-id",
        "slice-of-another-partition",
    ],
)
def test_a_group_refuses(slices: tuple[FileSlice, ...], refused: str) -> None:
    with pytest.raises(ValueError, match=refused):
        FileGroup(P, FG, slices)
