"""Dropping the metadata table as Hudi's delete_metadata_table does."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from maintainer.hudi.config.properties import parse_java_properties, parse_table_config, table_checksum
from maintainer.services.common.metadata_table import drop_metadata_table
from maintainer.storage import Storage

PROPERTIES = f"""#Properties saved on 2025-01-01T00:00:00Z
hoodie.table.name=trips
hoodie.table.type=COPY_ON_WRITE
hoodie.table.version=6
hoodie.table.metadata.partitions=column_stats,files
hoodie.table.metadata.partitions.inflight=record_index
hoodie.table.checksum={table_checksum("", "trips")}
"""


def _table(tmp_path: Path) -> Storage:
    (tmp_path / ".hoodie" / "metadata" / "files").mkdir(parents=True)
    (tmp_path / ".hoodie" / "metadata" / "files" / "x.hfile").write_bytes(b"h")
    (tmp_path / ".hoodie" / "hoodie.properties").write_text(PROPERTIES, encoding="latin-1")
    return Storage(str(tmp_path))


def test_properties_forget_every_metadata_partition_then_the_folder_goes(tmp_path: Path) -> None:
    storage = _table(tmp_path)
    dropped = drop_metadata_table(storage, datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
    assert dropped == ["column_stats", "files", "record_index"]
    text = (tmp_path / ".hoodie" / "hoodie.properties").read_text("latin-1")
    assert text.startswith("#Updated at 2026-01-02T03:04:05.000Z\n#Fri Jan 02 03:04:05 UTC 2026\n")
    values = parse_java_properties(text)
    assert values["hoodie.table.metadata.partitions"] == ""
    assert values["hoodie.table.metadata.partitions.inflight"] == ""
    assert values["hoodie.table.name"] == "trips" and values["hoodie.table.version"] == "6"
    config = parse_table_config(text.encode("latin-1"))  # the checksum verifies
    assert not config.has_metadata_table
    assert not (tmp_path / ".hoodie" / "metadata").exists()
    assert not (tmp_path / ".hoodie" / "hoodie.properties.backup").exists()


def test_a_leftover_metadata_folder_without_partitions_is_removed_without_touching_properties(
    tmp_path: Path,
) -> None:
    storage = _table(tmp_path)
    drop_metadata_table(storage)
    before = (tmp_path / ".hoodie" / "hoodie.properties").read_bytes()
    (tmp_path / ".hoodie" / "metadata").mkdir()
    assert drop_metadata_table(storage) == []
    assert (tmp_path / ".hoodie" / "hoodie.properties").read_bytes() == before
    assert not (tmp_path / ".hoodie" / "metadata").exists()
