"""Optional fast path from an Avro data block to a pyarrow Table, through polars' Avro reader.

When ``polars`` is installed, the block's content is wrapped, as it is, in an in-memory Avro
object container and decoded by polars (Rust), 4-10x faster than fastavro's per-record dicts,
then cast to this package's Arrow schema so both paths give the same Table. Each record's
4-byte length prefix is read as a leading ``fixed(4)`` field added to the writer schema, so
no Python work is done per record; the prefixes are then checked to chain exactly through the
content (each record ends where the next prefix starts, the last at the end), as a walk from
prefix to prefix would. Schemas with maps (polars does not read them) and any failure fall back
to the fastavro path (``None`` is returned), which reports corrupt content precisely.
"""

from __future__ import annotations

import io
import json
import struct
from functools import lru_cache

import numpy as np
import pyarrow as pa

from maintainer.hudi.logformat.binary import INT_BYTES

_TWO_INTS = struct.Struct(">ii")
_SYNC = bytes(range(16))  # any 16 bytes: the container only lives in memory
_FATAL = (KeyboardInterrupt, SystemExit, MemoryError)
LENGTH_FIELD = "_maintainer_datum_length"
_PREFIX = 2 * INT_BYTES  # content version and record count


def polars_available() -> bool:
    try:
        import polars  # noqa: F401
    except ImportError:
        return False
    return True


def table_via_polars(content: bytes, schema_json: str, schema: pa.Schema) -> pa.Table | None:
    """The records of Avro data block ``content`` as a Table, or None when this path cannot."""
    if not polars_available() or _has_map(schema) or len(content) < _PREFIX:
        return None
    count = _TWO_INTS.unpack_from(content)[1]
    if count <= 0:
        return schema.empty_table() if count == 0 and len(content) == _PREFIX else None
    try:
        import polars

        container = _container(_with_length_field(schema_json), count, content)
        table = polars.read_avro(io.BytesIO(container)).to_arrow()
        if table.num_rows != count or table.column_names != [LENGTH_FIELD, *schema.names]:
            return None
        if not _prefixes_chain(content, table.column(0)):
            return None
        return table.drop_columns([LENGTH_FIELD]).cast(schema)
    except BaseException as exc:  # polars panics are BaseException: fall back, never crash
        if isinstance(exc, _FATAL):
            raise
        return None


@lru_cache(maxsize=128)
def _with_length_field(schema_json: str) -> str:
    """The writer schema with a leading ``fixed(4)`` field that reads a record's length prefix."""
    record = json.loads(schema_json)
    length = {"name": LENGTH_FIELD, "type": {"type": "fixed", "name": f"{LENGTH_FIELD}_type", "size": 4}}
    return json.dumps({**record, "fields": [length, *record["fields"]]})


def _prefixes_chain(content: bytes, prefixes: pa.ChunkedArray) -> bool:
    """Do the decoded length prefixes sit where a prefix-to-prefix walk of ``content`` finds
    them, the last record ending at the end of the content?"""
    raw = prefixes.combine_chunks().cast(pa.binary(4))
    values = np.frombuffer(raw.buffers()[1], np.uint8, 4 * len(raw), 4 * raw.offset).reshape(-1, 4)
    lengths = values.view(">i4").ravel().astype(np.int64)
    if (lengths < 0).any():
        return False
    ends = np.cumsum(lengths + INT_BYTES) + _PREFIX
    if ends[-1] != len(content):
        return False
    starts = np.concatenate(([_PREFIX], ends[:-1]))
    data = np.frombuffer(content, np.uint8)
    return bool((data[starts[:, None] + np.arange(INT_BYTES)] == values).all())


def _has_map(schema: pa.Schema) -> bool:
    return any(_type_has_map(field.type) for field in schema)


def _type_has_map(data_type: pa.DataType) -> bool:
    if pa.types.is_map(data_type):
        return True
    if pa.types.is_struct(data_type):
        return any(_type_has_map(data_type.field(i).type) for i in range(data_type.num_fields))
    if pa.types.is_list(data_type) or pa.types.is_large_list(data_type):
        return _type_has_map(data_type.value_type)
    return False


def _container(schema_json: str, count: int, content: bytes) -> bytes:
    """An Avro object container of one block: the records of ``content`` (prefixes included)."""
    meta = {b"avro.schema": schema_json.encode("utf-8"), b"avro.codec": b"null"}
    entries = b"".join(_zigzag(len(k)) + k + _zigzag(len(v)) + v for k, v in meta.items())
    header = b"Obj\x01" + _zigzag(len(meta)) + entries + _zigzag(0) + _SYNC
    records = memoryview(content)[_PREFIX:]
    return b"".join((header, _zigzag(count), _zigzag(len(records)), records, _SYNC))


def _zigzag(value: int) -> bytes:
    """Avro's variable-length zig-zag encoding of a long."""
    number = (value << 1) ^ (value >> 63)
    out = bytearray()
    while number & ~0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)
