"""Avro ``bytes`` decimals encoded as Java writes them.

Java's Avro stores a bytes-backed decimal as ``BigInteger.toByteArray()`` of the unscaled value:
the shortest two's-complement form. fastavro spends one extra byte on negative values of the
form -2^(8k-1) (-128 is written ``ff80``, Java writes ``80``), so values are pre-encoded here
and handed to fastavro as bytes, which it writes unchanged.
"""

from __future__ import annotations

import decimal
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any


def java_decimal_bytes(value: decimal.Decimal, scale: int) -> bytes:
    """The unscaled value of ``value`` at ``scale`` in Java's minimal two's complement."""
    exponent = value.as_tuple().exponent
    if isinstance(exponent, int) and -exponent > scale:
        raise ValueError(f"decimal {value} has more than {scale} fraction digits")
    unscaled = int(value.scaleb(scale))
    magnitude_bits = unscaled.bit_length() if unscaled >= 0 else (~unscaled).bit_length()
    return unscaled.to_bytes(magnitude_bits // 8 + 1, "big", signed=True)


@lru_cache(maxsize=128)
def bytes_decimal_fields(schema_json: str) -> tuple[tuple[str, int], ...]:
    """(name, scale) of the record's top-level fields typed as (nullable) bytes decimals."""
    found = []
    for field in json.loads(schema_json).get("fields", []):
        branches = field["type"] if isinstance(field["type"], list) else [field["type"]]
        for branch in branches:
            if (
                isinstance(branch, dict)
                and branch.get("type") == "bytes"
                and branch.get("logicalType") == "decimal"
            ):
                found.append((str(field["name"]), int(branch.get("scale", 0))))
    return tuple(found)


def with_java_decimals(record: Mapping[str, Any], fields: tuple[tuple[str, int], ...]) -> Mapping[str, Any]:
    """``record`` with its Decimal values of ``fields`` replaced by Java-encoded bytes."""
    converted = {
        name: java_decimal_bytes(record[name], scale)
        for name, scale in fields
        if isinstance(record.get(name), decimal.Decimal)
    }
    return {**record, **converted} if converted else record
