"""The metadata write path against the files Hudi wrote: records decoded from a fixture's
metadata log block and written again (Avro values, HFile, log block) give the same bytes, and
go to the same file groups."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from maintainer.hudi.hfile import HFileStyle, read_hfile
from maintainer.hudi.hfile.model import CREATE_TIME_TS
from maintainer.hudi.logformat.model import BlockType
from maintainer.hudi.logformat.reader import read_log_blocks
from maintainer.hudi.metadata.record_schema import metadata_schemas
from maintainer.hudi.metadata.records import decode_value, parsed_schema
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.metadata.writer import (
    MetadataUpdate,
    WriteSettings,
    encode_value,
    hfile_block,
    log_file_writes,
)
from maintainer.hudi.table.state import open_table
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures
MOR_V9 = "sample_table_mor_avro_v9_txns_simple_meta"
COMPACTION = "20260307162618152"
TRIPS_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"


def _single_block_logs(folder: Path, instant: str) -> list[Path]:
    return sorted(folder.glob(f".*_{instant}.log.*"))


@pytest.mark.parametrize(
    ("name", "instant", "style"),
    [(MOR_V9, COMPACTION, HFileStyle.HUDI), (TRIPS_V8, "20251220210125441", HFileStyle.HBASE)],
)
def test_a_metadata_log_file_is_rewritten_byte_for_byte_from_its_records(
    name: str, instant: str, style: HFileStyle, fixture_table: Callable[[str], FixtureTable]
) -> None:
    root = fixture_table(name).path / ".hoodie" / "metadata"
    logs = [
        p
        for part in ("files", "column_stats", "partition_stats")
        for p in root.glob(f"{part}/.*_{instant}.log.*")
    ]
    assert len(logs) >= 3
    for log in logs:
        original = log.read_bytes()
        (block,) = read_log_blocks(original, str(log))
        assert block.block_type is BlockType.HFILE_DATA and block.schema_json is not None
        hfile = read_hfile(block.content, str(log))
        schema = parsed_schema(block.schema_json)
        records = []
        for cell in hfile.cells:
            record = decode_value(cell.value, block.schema_json, str(log))
            assert encode_value(record, schema) == cell.value
            records.append((cell.key.decode(), record))
        created = int.from_bytes(dict(hfile.file_info)[CREATE_TIME_TS], "big")
        rewritten = hfile_block(list(reversed(records)), instant, block.schema_json, style, created)
        assert rewritten == original, log.name


def test_records_go_to_the_file_groups_hudi_chose_with_the_same_files_and_stats(
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    path = fixture_table(MOR_V9).path
    mdt = open_metadata_table(open_table(str(path), verify=False))
    assert mdt is not None
    schemas = metadata_schemas(mdt.storage, mdt.state.snapshot.timeline)
    root = path / ".hoodie" / "metadata"
    records: dict[str, list[tuple[str, dict[str, object]]]] = {}
    expected = {}
    created = 0
    for log in root.glob(f"*/.*_{COMPACTION}.log.*"):
        (block,) = read_log_blocks(log.read_bytes(), str(log))
        assert block.schema_json == schemas.block_schema
        hfile = read_hfile(block.content, str(log))
        created = int.from_bytes(dict(hfile.file_info)[CREATE_TIME_TS], "big")
        for cell in hfile.cells:
            value = decode_value(cell.value, schemas.block_schema, str(log))
            records.setdefault(log.parent.name, []).append((cell.key.decode(), value))
        expected[(log.parent.name, log.name.split("_")[0][1:])] = (
            len(hfile.cells),
            hfile.cells,
            block.header,
        )
    update = MetadataUpdate(COMPACTION, records)
    writes = log_file_writes(mdt, update, WriteSettings(HFileStyle.HUDI, schemas, "244-1", created))
    written = {}
    for write in writes:
        (block,) = read_log_blocks(write.content, write.name)
        written[(write.partition, write.file_id)] = (
            write.record_count,
            read_hfile(block.content, write.name).cells,
            block.header,
        )
    assert written == expected  # each file's bytes: the test above (they differ by creation time)
    assert all(w.name.startswith(f".{w.file_id}_{COMPACTION}.log.1_") for w in writes)
