"""Metadata-table records: decode the Avro ``HoodieMetadataRecord`` values of an HFile and
merge the versions of one key the way ``HoodieMetadataPayload`` does.

A record is kept as the plain dict fastavro decodes (the schema has a dozen nested wrapper
types; only the ``files`` partition is interpreted here, in :mod:`.files`). A value of a union
with several record branches (the min/max wrappers) decodes as ``(record name, dict)``, so that
it encodes back into the same branch (``IntWrapper`` and ``LongWrapper`` look alike as dicts). Merging, oldest
first: ``files`` records combine their file maps (``combineFileSystemMetadata``: a newer
tombstone removes an older entry, two tombstones keep the newer, sizes take the maximum);
every other type takes the newer record; a key in a DELETE block removes the record.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import fastavro

from maintainer.errors import CorruptFileError
from maintainer.hudi.metadata.partitions import RecordType

MetadataRecord = dict[str, Any]
FILE_MAP = "filesystemMetadata"


@lru_cache(maxsize=8)
def parsed_schema(schema_json: str) -> Any:
    return fastavro.parse_schema(json.loads(schema_json))


def decode_value(value: bytes, schema_json: str, where: str) -> MetadataRecord:
    """One HFile cell value: a ``HoodieMetadataRecord`` in Avro binary (no container)."""
    try:
        record = fastavro.schemaless_reader(
            io.BytesIO(value),
            parsed_schema(schema_json),
            None,
            return_record_name=True,
            return_record_name_override=True,
        )
    except Exception as exc:  # fastavro raises many types for bad bytes
        raise CorruptFileError(
            f"a metadata record does not decode with the block's schema ({exc})", where=where
        ) from exc
    if not isinstance(record, dict) or not isinstance(record.get("type"), int):
        raise CorruptFileError("a metadata record without a type", where=where)
    return record


def merge_records(older: MetadataRecord | None, newer: MetadataRecord) -> MetadataRecord:
    """``newer`` merged onto ``older`` (same key)."""
    if older is None:
        return newer
    if newer["type"] in (RecordType.PARTITION_LIST, RecordType.FILE_LIST):
        return {**newer, FILE_MAP: combine_file_maps(older.get(FILE_MAP), newer.get(FILE_MAP))}
    return newer


def combine_file_maps(
    older: Mapping[str, Mapping[str, Any]] | None, newer: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, Mapping[str, Any]]:
    combined = dict(older or {})
    for name, info in (newer or {}).items():
        previous = combined.get(name)
        if previous is None:
            combined[name] = info
        elif info["isDeleted"]:
            if previous["isDeleted"]:
                combined[name] = info
            else:
                del combined[name]
        else:
            combined[name] = {"size": max(info["size"], previous["size"]), "isDeleted": False}
    return combined


def live_files(record: MetadataRecord) -> dict[str, int]:
    """A ``files`` record's files that exist (tombstones dropped): name -> size."""
    entries = record.get(FILE_MAP) or {}
    return {name: int(info["size"]) for name, info in entries.items() if not info["isDeleted"]}
