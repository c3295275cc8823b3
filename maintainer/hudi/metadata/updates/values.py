"""The min/max values of column and partition stats: their types and Avro wrappers, and the
order Hudi (Java ``compareTo``) puts them in.

Two index versions exist. ``V1`` (Hudi 1.0, table version 8) has no type information: each value
is wrapped by the Java class it has (``HoodieAvroWrapperUtils.wrapValueIntoAvro``: ``String`` in a
``StringWrapper``, ``BigDecimal`` in a ``DecimalWrapper`` at scale 15, ``java.sql.Date`` in a
``DateWrapper``, ...) and the record's ``valueType`` is null. ``V2`` (Hudi 1.1, table version 9)
records a ``ValueType`` (ordinal and, for decimals, ``"precision,scale"``) and wraps every value in
the primitive wrapper of that type (``ValueType``'s ``PrimitiveWrapperType``): a decimal is the
big-endian two's-complement bytes of its unscaled value in a ``BytesWrapper``, a date its epoch
day in an ``IntWrapper``, a timestamp its count of units in a ``LongWrapper``.

A value is held as :class:`Wrapped`: the wrapper's short name and the wrapper's ``value`` as
fastavro writes it (V1 decimals as the bytes Java writes, see :func:`java_bytes`).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from maintainer.errors import UnsupportedTableError

WRAPPER_NAMESPACE = "org.apache.hudi.avro.model."
V1_DECIMAL_SCALE = 15
V1_DECIMAL_PRECISION = 30
"""``DecimalWrapper``'s ``decimal(30, 15)``: V1 decimals are rescaled to it."""


class IndexVersion(enum.Enum):
    """``HoodieIndexVersion`` of the column and partition stats indexes."""

    V1 = "V1"
    V2 = "V2"


class ValueType(enum.IntEnum):
    """Hudi's ``ValueType``, by ordinal (the record's ``valueType.typeOrdinal``)."""

    V1 = 0
    NULL = 1
    BOOLEAN = 2
    INT = 3
    LONG = 4
    FLOAT = 5
    DOUBLE = 6
    STRING = 7
    BYTES = 8
    FIXED = 9
    DECIMAL = 10
    UUID = 11
    DATE = 12
    TIME_MILLIS = 13
    TIME_MICROS = 14
    TIMESTAMP_MILLIS = 15
    TIMESTAMP_MICROS = 16
    TIMESTAMP_NANOS = 17
    LOCAL_TIMESTAMP_MILLIS = 18
    LOCAL_TIMESTAMP_MICROS = 19
    LOCAL_TIMESTAMP_NANOS = 20


_PRIMITIVE_WRAPPER = {
    ValueType.BOOLEAN: "BooleanWrapper",
    ValueType.INT: "IntWrapper",
    ValueType.DATE: "IntWrapper",
    ValueType.TIME_MILLIS: "IntWrapper",
    ValueType.LONG: "LongWrapper",
    ValueType.TIME_MICROS: "LongWrapper",
    ValueType.TIMESTAMP_MILLIS: "LongWrapper",
    ValueType.TIMESTAMP_MICROS: "LongWrapper",
    ValueType.TIMESTAMP_NANOS: "LongWrapper",
    ValueType.LOCAL_TIMESTAMP_MILLIS: "LongWrapper",
    ValueType.LOCAL_TIMESTAMP_MICROS: "LongWrapper",
    ValueType.LOCAL_TIMESTAMP_NANOS: "LongWrapper",
    ValueType.FLOAT: "FloatWrapper",
    ValueType.DOUBLE: "DoubleWrapper",
    ValueType.STRING: "StringWrapper",
    ValueType.UUID: "StringWrapper",
    ValueType.BYTES: "BytesWrapper",
    ValueType.FIXED: "BytesWrapper",
    ValueType.DECIMAL: "BytesWrapper",
}


@dataclass(frozen=True, slots=True)
class ValueMeta:
    """Hudi's ``ValueMetadata``: the type of one column's values in one file or partition."""

    type: ValueType
    precision: int | None = None
    scale: int | None = None

    @property
    def is_v1(self) -> bool:
        return self.type is ValueType.V1

    @property
    def wrapper(self) -> str | None:
        """The V2 wrapper of this type (None for V1, whose wrapper follows each value, and NULL)."""
        return _PRIMITIVE_WRAPPER.get(self.type)

    def type_info(self) -> dict[str, Any] | None:
        """The record's ``valueType`` (``HoodieValueTypeInfo``); V1 writes none."""
        if self.is_v1:
            return None
        info = f"{self.precision},{self.scale}" if self.type is ValueType.DECIMAL else None
        return {"typeOrdinal": int(self.type), "additionalInfo": info}

    @classmethod
    def from_type_info(cls, info: Any) -> ValueMeta:
        """The meta of a record's ``valueType`` (null: V1)."""
        if info is None:
            return V1
        value_type = ValueType(int(info["typeOrdinal"]))
        if value_type is ValueType.DECIMAL:
            precision, scale = str(info["additionalInfo"]).split(",")
            return cls(value_type, int(precision), int(scale))
        return cls(value_type)


V1 = ValueMeta(ValueType.V1)


@dataclass(frozen=True, slots=True)
class Wrapped:
    """A min or max value: the Avro wrapper record's short name and the value it holds."""

    wrapper: str
    value: Any

    def to_avro(self) -> tuple[str, dict[str, Any]]:
        """fastavro's union notation for the wrapper record (picks the branch by name)."""
        return (WRAPPER_NAMESPACE + self.wrapper, {"value": self.value})


def java_bytes(number: int) -> bytes:
    """``BigInteger.toByteArray``: the shortest big-endian two's complement (at least a byte)."""
    magnitude = number if number >= 0 else ~number
    return number.to_bytes(magnitude.bit_length() // 8 + 1, "big", signed=True)


def v1_decimal(unscaled: int, scale: int, where: str) -> Wrapped:
    """A V1 ``DecimalWrapper``: the value rescaled to ``decimal(30, 15)``
    (``tryUpcastDecimal``: exact rescaling, else Hudi fails the write)."""
    if scale <= V1_DECIMAL_SCALE:
        rescaled = unscaled * 10 ** (V1_DECIMAL_SCALE - scale)
    else:
        rescaled, rest = divmod(unscaled, 10 ** (scale - V1_DECIMAL_SCALE))
        if rest:
            raise UnsupportedTableError(
                f"a decimal of scale {scale} does not fit decimal(30, 15)", where=where
            )
    if len(str(abs(rescaled))) > V1_DECIMAL_PRECISION:
        raise UnsupportedTableError(
            "a decimal does not fit decimal(30, 15) (Hudi 1.0 fails on it)", where=where
        )
    return Wrapped("DecimalWrapper", java_bytes(rescaled))


def order_key(value: Wrapped, meta: ValueMeta) -> Any:
    """A key that sorts values as Java's ``compareTo`` of Hudi's in-memory values does."""
    raw = value.value
    if meta.type is ValueType.DECIMAL:
        return int.from_bytes(raw, "big", signed=True)
    if meta.type is ValueType.UUID:
        return _uuid_key(raw)
    if value.wrapper == "DecimalWrapper":
        return _decimal_key(raw)
    if value.wrapper == "StringWrapper":
        return raw.encode("utf-16-be", errors="surrogatepass")  # String.compareTo: UTF-16 units
    if value.wrapper == "BytesWrapper":
        return bytes(b ^ 0x80 for b in raw)  # ByteBuffer.compareTo: signed bytes
    if value.wrapper in ("FloatWrapper", "DoubleWrapper"):
        return _double_key(raw)
    return raw


def _decimal_key(raw: bytes | Decimal) -> Decimal:
    if isinstance(raw, Decimal):
        return raw
    return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-V1_DECIMAL_SCALE)


def _double_key(number: float) -> tuple[int, float, int]:
    """``Double.compareTo``: -0.0 before 0.0, NaN after everything."""
    if math.isnan(number):
        return (1, 0.0, 0)
    return (0, number, 0 if math.copysign(1.0, number) < 0 else 1)


def _uuid_key(text: str) -> tuple[int, int]:
    """``UUID.compareTo``: the two halves as signed longs."""
    value = int(text.replace("-", ""), 16)
    high, low = value >> 64, value & (2**64 - 1)
    return (_signed64(high), _signed64(low))


def _signed64(number: int) -> int:
    return number - 2**64 if number >= 2**63 else number


def java_min(left: Wrapped | None, right: Wrapped | None, meta: ValueMeta) -> Wrapped | None:
    """``HoodieColumnRangeMetadata.minVal`` (null is no value; a tie keeps the right one)."""
    if left is None or right is None:
        return right if left is None else left
    _check_comparable(left, right)
    return left if order_key(left, meta) < order_key(right, meta) else right


def java_max(left: Wrapped | None, right: Wrapped | None, meta: ValueMeta) -> Wrapped | None:
    """``HoodieColumnRangeMetadata.maxVal``."""
    if left is None or right is None:
        return right if left is None else left
    _check_comparable(left, right)
    return left if order_key(left, meta) > order_key(right, meta) else right


def _check_comparable(left: Wrapped, right: Wrapped) -> None:
    if left.wrapper != right.wrapper:
        raise UnsupportedTableError(
            f"column stats of one column hold a {left.wrapper} and a {right.wrapper} (the column's "
            "type changed); Hudi cannot merge them either",
            hint="leave this table's metadata table to Hudi's own services",
        )
