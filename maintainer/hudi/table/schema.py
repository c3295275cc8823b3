"""The table's current schema: the Avro schema of the latest commit (``extraMetadata.schema``),
or ``hoodie.table.create.schema``, as an Arrow schema with the meta columns when the table
populates them."""

from __future__ import annotations

import pyarrow as pa

from maintainer.errors import MaintainerError
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import State
from maintainer.hudi.instants.timeline import read_instant_file
from maintainer.hudi.logformat import arrow_schema
from maintainer.hudi.parquet.basefile import with_meta_fields
from maintainer.hudi.table.snapshot import TableSnapshot
from maintainer.storage import Storage


def latest_avro_schema(storage: Storage, snapshot: TableSnapshot) -> str | None:
    """The newest commit's writer schema (newest first; commits without one are skipped)."""
    timeline = snapshot.timeline
    for instant in reversed(timeline.completed_commits()):
        path = timeline.file_path(instant, State.COMPLETED)
        metadata = payloads.decode_commit_metadata(read_instant_file(storage, path), storage.uri(path))
        schema = (metadata.extra_metadata or {}).get("schema")
        if schema:
            return schema
    return snapshot.config.create_schema


def table_arrow_schema(storage: Storage, snapshot: TableSnapshot) -> pa.Schema | None:
    """The Arrow schema readers return, or None where the table has no schema yet."""
    avro = latest_avro_schema(storage, snapshot)
    if not avro:
        return None
    if snapshot.config.populate_meta_fields:
        avro = with_meta_fields(avro)
    try:
        return arrow_schema(avro)
    except MaintainerError:
        return None


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` in ``schema``: columns in schema order, cast where the writer's type differs
    (Hudi tables can hold files written with older types), missing columns as nulls."""
    columns = []
    for field in schema:
        if field.name in table.column_names:
            column = table.column(field.name)
            columns.append(column if column.type == field.type else column.cast(field.type))
        else:
            columns.append(pa.nulls(table.num_rows, field.type))
    return pa.Table.from_arrays(columns, schema=schema)
