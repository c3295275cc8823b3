"""Loading a table's snapshot from storage (tables laid out by hand in tmp_path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.errors import CorruptFileError, TableFormatError, UnsupportedTableError
from maintainer.hudi.config.properties import format_java_properties, table_checksum
from maintainer.hudi.file_groups.fsview import build_view
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.table.snapshot import (
    discover_partitions,
    load_config,
    load_snapshot,
    load_timeline,
)
from maintainer.storage import Storage

T1, T2, T3 = "20240101000001000", "20240101000002000", "20240101000003000"


def properties(version: int = 6, partitioned: bool = True, **extra: str) -> bytes:
    values = {
        "hoodie.table.name": "t",
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.table.version": str(version),
        "hoodie.table.recordkey.fields": "id",
    }
    if version >= 8:
        values["hoodie.timeline.layout.version"] = "2"
    if partitioned:
        values["hoodie.table.partition.fields"] = "region"
    values.update(extra)
    values["hoodie.table.checksum"] = str(table_checksum("", "t"))
    return format_java_properties(values, ("Updated at 2024",)).encode()


def touch(root: Path, relative: str, data: bytes = b"") -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def v6_table(root: Path) -> Storage:
    touch(root, ".hoodie/hoodie.properties", properties())
    for name in (f"{T1}.deltacommit.requested", f"{T1}.deltacommit", f"{T2}.deltacommit.inflight"):
        touch(root, f".hoodie/{name}")
    touch(root, ".hoodie/.aux/.bootstrap/x")
    touch(root, ".hoodie/archived/.commits_.archive.1_1-0-1")
    for part in ("region=eu", "region=us/sub=1"):
        touch(root, f"{part}/.hoodie_partition_metadata", b"commitTime=1")
        touch(root, f"{part}/f1-0_0-1-1_{T1}.parquet", b"base")
    touch(root, "region=eu/.f1-0_" + T1 + ".log.1_0-2-2", b"log")
    touch(root, f"region=eu/f1-0_0-3-3_{T2}.parquet", b"uncommitted")
    touch(root, "region=us/.hoodie_partition_metadata_not_here_but_a_dir/x")
    touch(root, "_temporary/0/f.parquet")
    touch(root, "__MACOSX/region=eu/._x")
    touch(root, "region=eu/.DS_Store")
    return Storage(str(root))


def test_load_config_reads_properties(tmp_path: Path) -> None:
    storage = v6_table(tmp_path)
    config = load_config(storage)
    assert config.name == "t" and config.version == 6 and config.partition_fields == ("region",)


def test_missing_properties_is_not_a_hudi_table(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    with pytest.raises(TableFormatError, match="not a Hudi table") as info:
        load_config(Storage(str(tmp_path / "data")))
    assert info.value.where == str(tmp_path / "data")
    assert not isinstance(info.value, CorruptFileError)


def test_empty_properties_is_corrupt(tmp_path: Path) -> None:
    touch(tmp_path, ".hoodie/hoodie.properties", b"")
    with pytest.raises(CorruptFileError) as info:
        load_config(Storage(str(tmp_path)))
    assert str(info.value.where).endswith(".hoodie/hoodie.properties")


def test_unsupported_version_is_refused(tmp_path: Path) -> None:
    touch(tmp_path, ".hoodie/hoodie.properties", properties(version=5))
    touch(tmp_path, ".hoodie/hoodie.properties.backup", properties())
    with pytest.raises(UnsupportedTableError, match="table version 5"):
        load_config(Storage(str(tmp_path)))


def test_backup_used_when_properties_missing(tmp_path: Path) -> None:
    touch(tmp_path, ".hoodie/hoodie.properties.backup", properties(version=8))
    assert load_config(Storage(str(tmp_path))).version == 8


@pytest.mark.parametrize(
    "broken",
    [b"", b"hoodie.table.name=t\nhoodie.table.ver", properties().replace(b"checksum=", b"checksum=1")],
)
def test_backup_used_when_properties_corrupt(tmp_path: Path, broken: bytes) -> None:
    touch(tmp_path, ".hoodie/hoodie.properties", broken)
    touch(tmp_path, ".hoodie/hoodie.properties.backup", properties(version=8))
    assert load_config(Storage(str(tmp_path))).version == 8


def test_corrupt_properties_and_corrupt_backup_reports_the_properties(tmp_path: Path) -> None:
    touch(tmp_path, ".hoodie/hoodie.properties", b"")
    touch(tmp_path, ".hoodie/hoodie.properties.backup", b"")
    with pytest.raises(CorruptFileError) as info:
        load_config(Storage(str(tmp_path)))
    assert str(info.value.where).endswith(".hoodie/hoodie.properties")


def test_load_timeline_ignores_directories_and_other_files(tmp_path: Path) -> None:
    storage = v6_table(tmp_path)
    timeline = load_timeline(storage, load_config(storage))
    assert [(i.timestamp, i.action, i.state) for i in timeline] == [
        (T1, Action.DELTA_COMMIT, State.COMPLETED),
        (T2, Action.DELTA_COMMIT, State.INFLIGHT),
    ]


def test_load_timeline_layout2(tmp_path: Path) -> None:
    touch(tmp_path, ".hoodie/hoodie.properties", properties(version=8))
    touch(tmp_path, f".hoodie/timeline/{T1}_{T2}.commit")
    touch(tmp_path, ".hoodie/timeline/history/_version_")
    touch(tmp_path, f".hoodie/{T3}.commit")  # not in the layout-2 timeline directory
    storage = Storage(str(tmp_path))
    timeline = load_timeline(storage, load_config(storage))
    assert [(i.timestamp, i.completion_time) for i in timeline] == [(T1, T2)]
    assert timeline.directory == ".hoodie/timeline"


def test_partitions_are_directories_with_partition_metadata(tmp_path: Path) -> None:
    storage = v6_table(tmp_path)
    partitions = discover_partitions(storage, load_config(storage))
    assert list(partitions) == ["region=eu", "region=us/sub=1"]
    assert sorted(e.name for e in partitions["region=us/sub=1"]) == [
        ".hoodie_partition_metadata",
        f"f1-0_0-1-1_{T1}.parquet",
    ]


def test_non_partitioned_table_lists_the_base_path(tmp_path: Path) -> None:
    touch(tmp_path, ".hoodie/hoodie.properties", properties(partitioned=False))
    touch(tmp_path, f".hoodie/{T1}.commit")
    touch(tmp_path, ".hoodie_partition_metadata")
    touch(tmp_path, f"f1-0_0-1-1_{T1}.parquet")
    snapshot = load_snapshot(Storage(str(tmp_path)))
    assert snapshot.partitions == [""]
    view = build_view(snapshot.timeline, snapshot.listings)
    assert [s.base_file.name for s in view.latest_slices() if s.base_file] == [f"f1-0_0-1-1_{T1}.parquet"]


def test_load_snapshot(tmp_path: Path) -> None:
    storage = v6_table(tmp_path)
    touch(tmp_path, f".hoodie/.heartbeat/{T2}")
    snapshot = load_snapshot(storage)
    assert snapshot.base_uri == str(tmp_path)
    assert snapshot.partitions == ["region=eu", "region=us/sub=1"]
    assert list(snapshot.heartbeats) == [T2] and snapshot.heartbeats[T2] > 0
    assert not snapshot.metadata_table.exists and not snapshot.metadata_table.enabled
    view = build_view(snapshot.timeline, snapshot.listings)
    assert sorted(f.path for f in view.all_files()) == [
        f"region=eu/.f1-0_{T1}.log.1_0-2-2",
        f"region=eu/f1-0_0-1-1_{T1}.parquet",
        f"region=us/sub=1/f1-0_0-1-1_{T1}.parquet",
    ]
    assert [f.path for f in view.uncommitted] == [f"region=eu/f1-0_0-3-3_{T2}.parquet"]


def test_load_snapshot_of_given_partitions(tmp_path: Path) -> None:
    snapshot = load_snapshot(v6_table(tmp_path), partitions=["region=eu", "region=eu", "gone"])
    assert snapshot.partitions == ["gone", "region=eu"]
    assert snapshot.listings["gone"] == ()


def test_metadata_table_detected(tmp_path: Path) -> None:
    touch(
        tmp_path,
        ".hoodie/hoodie.properties",
        properties(8, True, **{"hoodie.table.metadata.partitions": "files"}),
    )
    touch(tmp_path, ".hoodie/metadata/.hoodie/hoodie.properties", b"x=y")
    snapshot = load_snapshot(Storage(str(tmp_path)))
    assert snapshot.metadata_table.exists and snapshot.metadata_table.enabled
    assert snapshot.metadata_table.partitions == ("files",)


def test_listed_sizes_are_the_sizes_of_the_files_the_listing_holds(tmp_path: Path) -> None:
    sizes = load_snapshot(v6_table(tmp_path), partitions=["region=eu"]).listed_sizes()
    assert sizes(f"region=eu/f1-0_0-1-1_{T1}.parquet") == len(b"base")
    assert sizes(f"region=eu/.f1-0_{T1}.log.1_0-2-2") == len(b"log")
    assert sizes("region=eu/never-listed.parquet") is None
    assert sizes(f"region=us/sub=1/f1-0_0-1-1_{T1}.parquet") is None  # a partition not listed
    assert sizes("region=eu") is None
