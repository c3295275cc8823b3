"""Delete blocks, content version 3 (Hudi 0.14+): the keys deleted by one write.

Content: int version (3), int length, then one Avro binary datum of ``HoodieDeleteRecordList``
(``schemas/avro/HoodieDeleteRecordList.avsc``). Each ordering value is wrapped in a one-field
record whose union branch (Int, Long, String, ...) is kept so a block re-encodes byte for byte.
Versions 1 and 2 were Java-Kryo serialized and are not read.
"""

from __future__ import annotations

import datetime
import decimal
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from importlib import resources
from typing import Any

import fastavro

from maintainer.errors import CorruptFileError, UnsupportedTableError
from maintainer.hudi.logformat.avro_block import AVRO_ERRORS
from maintainer.hudi.logformat.binary import Cursor, FormatError, pack_int
from maintainer.hudi.logformat.decimals import java_decimal_bytes
from maintainer.hudi.logformat.model import BlockType, LogBlock

DELETE_CONTENT_VERSION = 3
DECIMAL_WRAPPER_SCALE = 15
SCHEMA_PATH = resources.files("maintainer") / "resources" / "avro" / "HoodieDeleteRecordList.avsc"
_NAMESPACE = "org.apache.hudi.avro.model."
_INT32 = range(-(2**31), 2**31)


class OrderingType(str, Enum):
    """The wrapper record (union branch) an ordering value is stored in."""

    BOOLEAN = "BooleanWrapper"
    INT = "IntWrapper"
    LONG = "LongWrapper"
    FLOAT = "FloatWrapper"
    DOUBLE = "DoubleWrapper"
    BYTES = "BytesWrapper"
    STRING = "StringWrapper"
    DATE = "DateWrapper"
    DECIMAL = "DecimalWrapper"
    TIME_MICROS = "TimeMicrosWrapper"
    TIMESTAMP_MICROS = "TimestampMicrosWrapper"
    LOCAL_DATE = "LocalDateWrapper"
    ARRAY = "ArrayWrapper"


@dataclass(frozen=True, slots=True)
class OrderingValue:
    """An ordering value with its wrapper type. DATE holds days since the epoch, TIME_MICROS and
    TIMESTAMP_MICROS hold microseconds, ARRAY a tuple of OrderingValue (or None) items."""

    type: OrderingType
    value: Any

    @classmethod
    def infer(cls, value: Any) -> OrderingValue:
        """The wrapper Hudi would use for a Python value (int: Int if it fits 32 bits, else Long)."""
        return cls(_infer_type(value), _stored_value(value))

    def plain(self) -> Any:
        """The bare value (ARRAY: a tuple of bare values)."""
        if self.type is OrderingType.ARRAY:
            return None if self.value is None else tuple(item and item.plain() for item in self.value)
        return self.value


@dataclass(frozen=True, slots=True)
class DeleteRecord:
    record_key: str | None
    partition_path: str | None
    ordering: OrderingValue | None = None

    @property
    def ordering_value(self) -> Any:
        return None if self.ordering is None else self.ordering.plain()


def _infer_type(value: Any) -> OrderingType:
    if isinstance(value, bool):
        return OrderingType.BOOLEAN
    if isinstance(value, int):
        return OrderingType.INT if value in _INT32 else OrderingType.LONG
    if isinstance(value, float):
        return OrderingType.DOUBLE
    if isinstance(value, str):
        return OrderingType.STRING
    if isinstance(value, bytes):
        return OrderingType.BYTES
    if isinstance(value, decimal.Decimal):
        return OrderingType.DECIMAL
    if isinstance(value, datetime.datetime):
        return OrderingType.TIMESTAMP_MICROS
    if isinstance(value, datetime.date):
        return OrderingType.DATE
    raise TypeError(f"no Hudi ordering wrapper for {type(value).__name__} values")


def _stored_value(value: Any) -> Any:
    if isinstance(value, datetime.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
        return (aware - _EPOCH) // datetime.timedelta(microseconds=1)
    if isinstance(value, datetime.date):
        return (value - _EPOCH.date()).days
    return value


_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


@lru_cache(maxsize=1)
def delete_record_list_schema() -> Any:
    """The parsed ``HoodieDeleteRecordList`` schema."""
    return fastavro.parse_schema(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def decode_delete_content(content: bytes, where: str) -> list[DeleteRecord]:
    cursor = Cursor(content)
    try:
        version = cursor.read_int()
        _check_version(version, where)
        datum = cursor.read_bytes(cursor.read_int())
    except FormatError as exc:
        raise CorruptFileError(f"delete block content is malformed: {exc}", where=where) from exc
    if cursor.remaining:
        raise CorruptFileError(f"delete block content has {cursor.remaining} trailing bytes", where=where)
    buffer = io.BytesIO(datum)
    try:
        decoded = fastavro.schemaless_reader(
            buffer, delete_record_list_schema(), None, return_record_name=True
        )
    except AVRO_ERRORS as exc:
        raise CorruptFileError(f"delete records do not decode: {exc}", where=where) from exc
    if buffer.tell() != len(datum):
        raise CorruptFileError(f"delete records end before their length ({len(datum)} bytes)", where=where)
    assert isinstance(decoded, dict)
    return [_delete_record(item) for item in decoded["deleteRecordList"]]


def _check_version(version: int, where: str) -> None:
    if version in (1, 2):
        raise UnsupportedTableError(
            f"delete block content version {version} is Java-Kryo serialized (Hudi before 0.14)",
            where=where,
            hint="compact this file group with Hudi first, or upgrade the table with Hudi 0.14+",
        )
    if version != DELETE_CONTENT_VERSION:
        raise UnsupportedTableError(f"delete block content version {version} is not supported", where=where)


def _delete_record(item: dict[str, Any]) -> DeleteRecord:
    return DeleteRecord(item["recordKey"], item["partitionPath"], _ordering_from_avro(item["orderingVal"]))


def _ordering_from_avro(branch: Any) -> OrderingValue | None:
    if branch is None:
        return None
    name, record = branch
    kind = OrderingType(name.removeprefix(_NAMESPACE))
    if kind is OrderingType.ARRAY:
        items = record["wrappedValues"]
        return OrderingValue(kind, None if items is None else tuple(_ordering_from_avro(i) for i in items))
    return OrderingValue(kind, record["value"])


def _ordering_to_avro(ordering: OrderingValue | None) -> Any:
    if ordering is None:
        return None
    if ordering.type is OrderingType.ARRAY:
        items = ordering.value
        wrapped = None if items is None else [_ordering_to_avro(item) for item in items]
        return (_NAMESPACE + ordering.type.value, {"wrappedValues": wrapped})
    value: Any = ordering.value
    if ordering.type is OrderingType.DECIMAL and isinstance(value, decimal.Decimal):
        value = java_decimal_bytes(value, DECIMAL_WRAPPER_SCALE)
    return (_NAMESPACE + ordering.type.value, {"value": value})


def encode_delete_content(records: Iterable[DeleteRecord]) -> bytes:
    """Version-3 delete block content for ``records``."""
    datum = {
        "deleteRecordList": [
            {
                "recordKey": record.record_key,
                "partitionPath": record.partition_path,
                "orderingVal": _ordering_to_avro(record.ordering),
            }
            for record in records
        ]
    }
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, delete_record_list_schema(), datum)
    raw = buffer.getvalue()
    return pack_int(DELETE_CONTENT_VERSION) + pack_int(len(raw)) + raw


def block_deletes(block: LogBlock) -> list[DeleteRecord]:
    """The delete records of a DELETE block; CorruptFileError for a corrupt or other block."""
    if block.is_corrupt:
        raise CorruptFileError(f"corrupt log block: {block.corrupt_reason}", where=block.location)
    if block.block_type is not BlockType.DELETE:
        raise CorruptFileError(f"a {block.block_type.name} block holds no deletes", where=block.location)
    return decode_delete_content(block.content, block.location)
