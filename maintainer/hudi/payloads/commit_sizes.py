"""The files a commit wrote and their sizes, decoded without the rest of its metadata.

The integrity check decodes every completed commit of the active timeline on every plan and
apply: on a large table that is one write stat per data file. Building full
:class:`~maintainer.hudi.payloads.write_stat.WriteStat` models for them costs several times the
decoding itself, so this decoder reads only ``path`` and ``fileSizeInBytes``. The file is still
decoded completely: Avro with a reader schema that skips the other fields (every byte is still
read, a cut or garbled file still fails), JSON parsed whole. Errors are those of
:func:`maintainer.hudi.payloads.decode.decode_commit_metadata`, naming ``where``.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from typing import Any

import fastavro

from maintainer.errors import CorruptFileError
from maintainer.hudi.payloads import jackson
from maintainer.hudi.payloads.container import CORRUPT_HINT, is_container, undecodable_container

COMMIT_SCHEMAS = frozenset({"HoodieCommitMetadata", "HoodieReplaceCommitMetadata"})
STATS_FIELD = "partitionToWriteStats"
KEPT_STAT_FIELDS = frozenset({"path", "fileSizeInBytes"})

CommittedFile = tuple[str, int]
"""(path relative to the table, size in bytes recorded by the write stat)."""


def decode_committed_files(data: bytes, where: str) -> list[CommittedFile]:
    """Every (path, fileSizeInBytes) the commit's write stats record (stats without a path or a
    size are left out); an empty file records none, as Hudi reads it."""
    if not data.strip():
        return []
    record = _avro_record(data, where) if is_container(data) else jackson.loads_object(data, where)
    try:
        return list(_files(record.get(STATS_FIELD)))
    except (AttributeError, TypeError, ValueError) as error:
        raise CorruptFileError(
            f"not valid commit metadata: {type(error).__name__}: {error}", where=where, hint=CORRUPT_HINT
        ) from error


def _files(by_partition: Mapping[str, Any] | None) -> Iterator[CommittedFile]:
    for stats in (by_partition or {}).values():
        for stat in stats or ():
            path, size = stat.get("path"), stat.get("fileSizeInBytes")
            if path and size is not None:
                yield str(path), int(size)


def _short_name(schema: Any) -> str:
    name = schema.get("name", "") if isinstance(schema, dict) else ""
    return str(name).rsplit(".", 1)[-1]


def _project_stat(schema: Any) -> Any:
    """The write-stat record schema with only the kept fields, wherever it sits in ``schema``
    (a union, a map of arrays); other types unchanged."""
    if isinstance(schema, list):
        return [_project_stat(branch) for branch in schema]
    if not isinstance(schema, dict):
        return schema
    kind = schema.get("type")
    if kind == "map":
        return {**schema, "values": _project_stat(schema["values"])}
    if kind == "array":
        return {**schema, "items": _project_stat(schema["items"])}
    if kind == "record":
        return {
            **schema,
            "fields": [f for f in schema.get("fields", ()) if f.get("name") in KEPT_STAT_FIELDS],
        }
    return schema


def _reader_schema(writer: Mapping[str, Any]) -> Any:
    fields = [
        {**f, "type": _project_stat(f["type"])}
        for f in writer.get("fields", ())
        if f.get("name") == STATS_FIELD
    ]
    return fastavro.parse_schema({**writer, "fields": fields})


def _avro_record(data: bytes, where: str) -> Mapping[str, Any]:
    try:
        writer = fastavro.reader(io.BytesIO(data)).writer_schema
        name = _short_name(writer)
        if name not in COMMIT_SCHEMAS or not isinstance(writer, dict):
            expected = " or ".join(sorted(COMMIT_SCHEMAS))
            raise CorruptFileError(
                f"expected an Avro {expected}, found {name or 'an unnamed schema'}",
                where=where,
                hint="the instant file does not match its action; check the timeline for misnamed files",
            )
        records = list(fastavro.reader(io.BytesIO(data), reader_schema=_reader_schema(writer)))
    except CorruptFileError:
        raise
    except Exception as error:  # fastavro raises many types on damaged input
        raise undecodable_container(error, where) from error
    if len(records) != 1 or not isinstance(records[0], dict):
        raise CorruptFileError(
            f"expected exactly one Avro record, found {len(records)}", where=where, hint=CORRUPT_HINT
        )
    return records[0]
