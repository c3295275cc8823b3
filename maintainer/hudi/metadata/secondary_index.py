"""Secondary indexes (``secondary_index_<name>``) against the records of the latest slices:
every live record's value of the indexed column is indexed with its record key, and nothing
else is indexed.

A record key is ``<secondary value>$<record key>``, each part escaped by Hudi's
``SecondaryIndexKeyUtils``: ``\\``, ``$`` and NUL get a ``\\`` before them, and a null value is
the single NUL character. The value is the Java ``toString`` of the column's Avro value (a date
is its epoch day, a timestamp its count of units); columns of other types (floating point,
decimals, bytes) are not compared, as are indexes over an expression. Hudi's lookups by a value
that the index misses do not find the record; an extra entry returns a record that does not
hold the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from maintainer.hudi.metadata.findings import IndexFinding, data_file
from maintainer.hudi.metadata.latest_records import LatestRecords, Location
from maintainer.hudi.metadata.partitions import MetadataPartitionKind
from maintainer.hudi.metadata.records import MetadataRecord

SEPARATOR = "$"
ESCAPE = "\\"
NULL = "\0"
IDENTITY = ("", "identity")
"""``indexFunction`` values of an index over the column itself."""


def escape(text: str | None) -> str:
    """``SecondaryIndexKeyUtils.escapeSpecialChars``."""
    if text is None:
        return NULL
    return "".join(ESCAPE + c if c in (ESCAPE, SEPARATOR, NULL) else c for c in text)


def unescape(text: str) -> str | None:
    """``SecondaryIndexKeyUtils.unescapeSpecialChars``."""
    if text == NULL:
        return None
    out, escaped = [], False
    for c in text:
        if escaped:
            out.append(c)
            escaped = False
        elif c == ESCAPE:
            escaped = True
        else:
            out.append(c)
    return "".join(out)


def secondary_index_key(value: str | None, record_key: str) -> str:
    """``constructSecondaryIndexKey``."""
    return escape(value) + SEPARATOR + escape(record_key)


def split_key(key: str) -> tuple[str | None, str | None] | None:
    """(secondary value, record key) of an index key (None: no unescaped separator)."""
    escaped = False
    for index, c in enumerate(key):
        if c == ESCAPE and not escaped:
            escaped = True
        elif c == SEPARATOR and not escaped:
            return unescape(key[:index]), unescape(key[index + 1 :])
        else:
            escaped = False
    return None


def java_string(value: Any) -> str | None:
    """The Java ``toString`` of an Avro value of a supported type (None for null); raises
    ValueError for a type whose string Python does not give the same way."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    raise ValueError(f"values of type {type(value).__name__} are not compared")


@dataclass(frozen=True)
class SecondaryIndexCheck:
    findings: tuple[IndexFinding, ...]
    compared: int
    """Records whose secondary keys were compared (over all indexes)."""
    not_compared: tuple[str, ...] = ()


def secondary_index_columns(names: list[str], definitions: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Secondary index partition -> the column it indexes (indexes over an expression, or
    over several columns, are left out)."""
    columns = {}
    for name in names:
        definition = definitions.get(name) or {}
        fields = list(definition.get("sourceFields") or [])
        if len(fields) == 1 and str(definition.get("indexFunction") or "") in IDENTITY:
            columns[name] = str(fields[0])
    return columns


def is_secondary_index(name: str) -> bool:
    return MetadataPartitionKind.SECONDARY_INDEX.matches(name)


def check_secondary_index(
    name: str, column: str, records: Mapping[str, MetadataRecord], latest: LatestRecords
) -> tuple[list[IndexFinding], int, str | None]:
    """Findings of index ``name`` over ``column``, records compared, and why it was not
    compared (None: it was)."""
    if column not in latest.values:
        return [], 0, f"{name} (the data has no column {column!r})"
    expected: dict[str, Location] = {}
    try:
        for record_key, value, location in latest.values[column]:
            expected.setdefault(secondary_index_key(java_string(value), record_key), location)
    except ValueError as exc:
        return [], 0, f"{name} ({exc})"
    stored = {key for key, record in records.items() if not _is_deleted(record)}
    findings = [
        _missing(name, column, key, location)
        for key, location in sorted(expected.items())
        if key not in stored
    ]
    findings += [_extra(name, column, key) for key in sorted(stored - set(expected))]
    return findings, len(latest.values[column]), None


def _is_deleted(record: MetadataRecord) -> bool:
    return bool((record.get("SecondaryIndexMetadata") or {}).get("isDeleted"))


def _missing(name: str, column: str, key: str, location: Location) -> IndexFinding:
    value, record_key = split_key(key) or (None, key)
    return IndexFinding(
        name,
        data_file(*location),
        f"record {record_key!r} with {column} = {value!r} is not indexed (key {key!r}; lookups by "
        "that value miss the record)",
    )


def _extra(name: str, column: str, key: str) -> IndexFinding:
    value, record_key = split_key(key) or (None, None)
    return IndexFinding(
        name,
        f"key {key!r}",
        f"indexes record {record_key!r} under {column} = {value!r}, which no record of the latest "
        "slices has (lookups by that value return a record that does not hold it)",
    )
