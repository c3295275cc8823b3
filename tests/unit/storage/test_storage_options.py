"""Storage options reach the file system of every scheme that takes them, and options given for
a scheme that does not are an error (never silently dropped)."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.errors import StorageError
from maintainer.storage import Storage


def test_s3_takes_pyarrows_option_names() -> None:
    storage = Storage(
        "s3://bucket/lake/t", {"region": "eu-west-1", "endpoint_override": "http://127.0.0.1:1"}
    )
    assert storage.arrow_fs.type_name == "s3"
    assert storage.uri("x") == "s3://bucket/lake/t/x"


def test_an_option_s3_does_not_know_is_an_error_naming_the_uri() -> None:
    with pytest.raises(StorageError) as error:
        Storage("s3://bucket/t", {"no_such_option": "1"})
    assert "cannot open storage for s3://bucket/t" in str(error.value)


def test_options_for_a_scheme_that_takes_none_are_refused() -> None:
    with pytest.raises(StorageError) as error:
        Storage("mock://bucket/t", {"region": "x"})
    assert "storage options are not taken for mock://" in str(error.value)


def test_local_paths_need_no_options() -> None:
    assert Storage("/tmp/somewhere", {}).is_local


class _RecordingFileSystem:
    """Stands in for an object store's pyarrow file system: records folder creations."""

    type_name = "s3"

    def __init__(self) -> None:
        self.created: list[str] = []

    def create_dir(self, path: str, recursive: bool = True) -> None:
        self.created.append(path)


def test_no_folder_marker_is_written_on_an_object_store() -> None:
    storage = Storage("s3://bucket/lake/t", {"region": "eu-west-1"})
    recording = _RecordingFileSystem()
    storage._fs = recording
    storage.make_dirs(".hoodie/timeline/history")
    storage.make_dirs("")
    assert recording.created == []


def test_local_folders_are_still_created(tmp_path: Path) -> None:
    storage = Storage(str(tmp_path / "t"))
    storage.make_dirs(".hoodie/timeline")
    assert (tmp_path / "t" / ".hoodie" / "timeline").is_dir()


def test_abfs_takes_azure_options_and_roots_at_the_container() -> None:
    hadoop_style = Storage("abfss://lake@acct.dfs.core.windows.net/warehouse/t", {"account_key": "a2V5"})
    assert hadoop_style.arrow_fs.type_name == "abfs"
    assert hadoop_style.full_path("x") == "lake/warehouse/t/x"
    assert hadoop_style.uri("x") == "abfss://lake@acct.dfs.core.windows.net/warehouse/t/x"
    short = Storage("abfs://lake/warehouse/t", {"account_name": "acct", "account_key": "a2V5"})
    assert short.full_path(".hoodie") == "lake/warehouse/t/.hoodie"
    with pytest.raises(StorageError, match="give account_name in the storage options"):
        Storage("abfs://lake/warehouse/t", {"account_key": "a2V5"})
