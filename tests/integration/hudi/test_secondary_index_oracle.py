"""The secondary indexes Hudi wrote into the fixtures hold exactly the keys maintainer derives
from the records hudi-rs reads (``<escaped value>$<escaped record key>``, a date as its epoch
day, a null as NUL), and the records maintainer's reader gives derive the same keys: the
``--check-metadata`` secondary index check judges Hudi's own indexes as hudi-rs sees the data.
Column stats of every listed base file with rows are compared with its footer on every fixture."""

from __future__ import annotations

from collections.abc import Callable

import pyarrow.parquet as pq
import pytest

from maintainer.hudi.metadata.check import check_metadata_table
from maintainer.hudi.metadata.files import metadata_file_listing
from maintainer.hudi.metadata.latest_records import raw_values, read_latest_records
from maintainer.hudi.metadata.secondary_index import (
    is_secondary_index,
    java_string,
    secondary_index_columns,
    secondary_index_key,
)
from maintainer.hudi.metadata.table import open_metadata_table
from maintainer.hudi.metadata.updates.indexes import read_index_definitions
from maintainer.hudi.table.state import open_table
from tests.support import oracle
from tests.support.fixtures import FixtureTable, metadata_fixture_names

pytestmark = pytest.mark.fixtures
READABLE = [n for n in metadata_fixture_names() if "lance" not in n]
"""Lance base files are read by neither reader here."""


@pytest.mark.parametrize("name", READABLE)
def test_secondary_indexes_hold_the_keys_of_the_records_hudi_reads(
    fixture_table: Callable[[str], FixtureTable], name: str
) -> None:
    path = fixture_table(name).path
    table = open_table(str(path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    names = [p.name for p in mdt.partitions if is_secondary_index(p.name)]
    if not names:
        pytest.skip(f"{name} has no secondary index")
    columns = secondary_index_columns(names, read_index_definitions(table.storage, table.snapshot.config))
    assert sorted(columns) == sorted(names)
    rows = oracle.snapshot_table(path)
    ours = read_latest_records(table, sorted(set(columns.values())))
    assert ours is not None
    record_keys = [str(k) for k in rows.column("_hoodie_record_key").to_pylist()]
    for index, column in columns.items():
        values = raw_values(rows.column(column))
        from_hudi = {secondary_index_key(java_string(v), k) for k, v in zip(record_keys, values, strict=True)}
        stored = {
            key
            for key, record in mdt.read_partition(index).items()
            if not record["SecondaryIndexMetadata"]["isDeleted"]
        }
        assert stored == from_hudi, index
        from_ours = {secondary_index_key(java_string(v), k) for k, v, _ in ours.values[column]}
        assert from_ours == from_hudi, index


@pytest.mark.parametrize("name", READABLE)
def test_every_listed_base_file_footer_is_compared(
    fixture_table: Callable[[str], FixtureTable], name: str
) -> None:
    table = open_table(str(fixture_table(name).path), verify=False)
    mdt = open_metadata_table(table)
    assert mdt is not None
    check = check_metadata_table(table, mdt)
    assert check.passed and check.compared is not None
    listed = metadata_file_listing(mdt)
    parquet = [f"{p}/{f}" if p else f for p, files in listed.items() for f in files if f.endswith(".parquet")]
    with_rows = [f for f in parquet if pq.read_metadata(table.storage.uri(f)).num_rows > 0]
    assert check.compared.footers_read == len(with_rows) > 0  # Hudi indexes no file of no rows
