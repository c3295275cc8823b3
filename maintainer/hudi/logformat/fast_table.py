"""Optional fast path from an Avro data block to a pyarrow Table, through polars' Avro reader.

When ``polars`` is installed, the block's datums (length prefixes stripped) are wrapped in an
in-memory Avro object container and decoded by polars (Rust), 4-10x faster than fastavro's
per-record dicts, then cast to this package's Arrow schema so both paths give the same Table.
Schemas with maps (polars does not read them) and any failure fall back to the fastavro path
(``None`` is returned), which reports corrupt content precisely.
"""

from __future__ import annotations

import io
import struct

import pyarrow as pa

from maintainer.hudi.logformat.binary import INT_BYTES

_INT = struct.Struct(">i")
_SYNC = bytes(range(16))  # any 16 bytes: the container only lives in memory
_FATAL = (KeyboardInterrupt, SystemExit, MemoryError)


def polars_available() -> bool:
    try:
        import polars  # noqa: F401
    except ImportError:
        return False
    return True


def table_via_polars(content: bytes, schema_json: str, schema: pa.Schema) -> pa.Table | None:
    """The records of Avro data block ``content`` as a Table, or None when this path cannot."""
    if not polars_available() or _has_map(schema):
        return None
    datums = _split_datums(content)
    if datums is None:
        return None
    if not datums:
        return schema.empty_table()
    try:
        import polars

        table = polars.read_avro(io.BytesIO(_container(schema_json, datums))).to_arrow()
        if table.num_rows != len(datums) or table.column_names != schema.names:
            return None
        return table.cast(schema)
    except BaseException as exc:  # polars panics are BaseException: fall back, never crash
        if isinstance(exc, _FATAL):
            raise
        return None


def _split_datums(content: bytes) -> list[memoryview] | None:
    """One view per record datum, or None when the length prefixes do not add up."""
    if len(content) < 2 * INT_BYTES:
        return None
    view = memoryview(content)
    count = _INT.unpack_from(content, INT_BYTES)[0]
    pos, datums = 2 * INT_BYTES, []
    for _ in range(count):
        if pos + INT_BYTES > len(content):
            return None
        length = _INT.unpack_from(content, pos)[0]
        pos += INT_BYTES
        if length < 0 or pos + length > len(content):
            return None
        datums.append(view[pos : pos + length])
        pos += length
    return datums if pos == len(content) else None


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


def _container(schema_json: str, datums: list[memoryview]) -> bytes:
    data = b"".join(datums)
    meta = {b"avro.schema": schema_json.encode("utf-8"), b"avro.codec": b"null"}
    entries = b"".join(_zigzag(len(k)) + k + _zigzag(len(v)) + v for k, v in meta.items())
    header = b"Obj\x01" + _zigzag(len(meta)) + entries + _zigzag(0) + _SYNC
    return header + _zigzag(len(datums)) + _zigzag(len(data)) + data + _SYNC


def _zigzag(value: int) -> bytes:
    """Avro's variable-length zig-zag encoding of a long."""
    number = (value << 1) ^ (value >> 63)
    out = bytearray()
    while number & ~0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)
