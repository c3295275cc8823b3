"""Two manifest entries for one table are refused, however the path is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.errors import ManifestError
from maintainer.project import load_project
from maintainer.project.loader import table_location_key
from tests.unit.project.projects import write_project


def manifest(first: str, second: str) -> str:
    return f"version: 1\ntables:\n  - name: a\n    path: {first}\n  - name: b\n    path: {second}\n"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("/lake/a", "/lake/a"),
        ("/lake/a", "/lake/a/"),
        ("/lake/a", "file:///lake/a"),
        ("/lake/a", "/lake/x/../a"),
        ("/lake/a", "/lake/./a//"),
        ("file:///lake/a/", "/lake//a"),
        ("s3://bucket/lake/a", "s3://bucket/lake/a/"),
        ("s3://bucket/lake/a", "s3a://bucket/lake/a"),
        ("gs://bucket/a", "GS://bucket/a//"),
    ],
)
def test_one_table_written_two_ways_is_refused_with_both_locations(
    tmp_path: Path, first: str, second: str
) -> None:
    root = write_project(tmp_path, {"tables/a.yml": manifest(first, second)})

    with pytest.raises(ManifestError) as caught:
        load_project(root)

    error = caught.value
    assert error.where == "tables/a.yml:5"
    assert f"tables 'a' (tables/a.yml:3, path {first!r}) and 'b' (tables/a.yml:5, path {second!r})" in (
        error.message
    )
    assert "are the same table" in error.message
    assert error.hint == "keep one entry for the table: remove 'b' or merge it into 'a'"


def test_entries_in_two_manifests_are_compared_too(tmp_path: Path) -> None:
    root = write_project(tmp_path, {"tables/b.yml": "version: 1\ntables:\n  - name: b\n    path: /lake/a/\n"})

    with pytest.raises(ManifestError) as caught:
        load_project(root)

    assert caught.value.where == "tables/b.yml:3"
    assert "'a' (tables/a.yml:3, path '/lake/a')" in caught.value.message


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("/lake/a", "/lake/ab"),
        ("/lake/a", "/lake/a/b"),
        ("s3://bucket/a", "s3://other/a"),
        ("s3://bucket/a", "gs://bucket/a"),
        ("s3://bucket/x/../a", "s3://bucket/a"),  # object stores take '..' literally: two prefixes
    ],
)
def test_different_tables_load(tmp_path: Path, first: str, second: str) -> None:
    root = write_project(tmp_path, {"tables/a.yml": manifest(first, second)})

    assert [spec.name for spec in load_project(root).tables] == ["a", "b"]


def test_the_key_resolves_links_on_the_way(tmp_path: Path) -> None:
    (tmp_path / "real" / "t").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")

    assert table_location_key(str(tmp_path / "link" / "t")) == table_location_key(
        str(tmp_path / "real" / "t")
    )
    assert table_location_key(str(tmp_path / "link" / "new")) == table_location_key(
        str(tmp_path / "real/new")
    )
    assert table_location_key("~/t") == table_location_key(str(Path.home() / "t"))


def test_one_table_listed_twice_through_a_linked_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "lake" / "t").mkdir(parents=True)
    (tmp_path / "mirror").symlink_to(tmp_path / "lake")
    root = write_project(
        tmp_path, {"tables/a.yml": manifest(str(tmp_path / "lake/t"), str(tmp_path / "mirror/t"))}
    )

    with pytest.raises(ManifestError) as err:
        load_project(root)
    assert "tables 'a' (tables/a.yml:" in str(err.value) and "are the same table" in str(err.value)
