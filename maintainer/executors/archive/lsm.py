"""The table-version-8 archived timeline: the LSM history in ``.hoodie/timeline/history/``.

* data files ``<minInstant>_<maxInstant>_<level>.parquet``: rows of ``HoodieLSMTimelineInstant``
  (Parquet written from the Avro schema, which the footer carries as ``parquet.avro.schema``);
* ``manifest_<N>``: the valid data files, Jackson-pretty JSON ``{"files":[{"fileName","fileLen"}]}``;
* ``_version_``: the latest manifest version N.

This module writes it; the read side lives in :mod:`maintainer.hudi.instants.archived` (the file-system
view reads completion times of archived instants from it).

An archival adds one level-0 file, then a new manifest listing it with the previous files, then
moves ``_version_`` to it; only then are instant files deleted. A run cut short leaves either an
unreferenced data file or manifest (ignored by readers) or a complete new version.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError
from maintainer.hudi.instants.archived import (
    MANIFEST_PREFIX,
    VERSION_FILE,
    ManifestFile,
    current_version,
    manifest_versions,
    read_data_file,
    read_manifest,
)
from maintainer.hudi.payloads import LSMTimelineInstant, schema_text
from maintainer.hudi.payloads.jackson import dumps as jackson_dumps
from maintainer.storage import Storage

LSM_SCHEMA = pa.schema(
    [
        pa.field("instantTime", pa.string()),
        pa.field("completionTime", pa.string()),
        pa.field("action", pa.string()),
        pa.field("metadata", pa.binary()),
        pa.field("plan", pa.binary()),
        pa.field("version", pa.int32(), nullable=False),
    ]
)


def encode_manifest(files: Sequence[ManifestFile]) -> bytes:
    body = {"files": [{"fileName": f.name, "fileLen": f.length} for f in files]}
    return jackson_dumps(body).encode("utf-8")


def encode_data_file(rows: Sequence[LSMTimelineInstant]) -> bytes:
    records = [row.to_record() for row in rows]
    table = pa.Table.from_pylist(records, schema=LSM_SCHEMA)
    metadata = {
        b"parquet.avro.schema": schema_text(LSMTimelineInstant.SCHEMA).encode(),
        b"writer.model.name": b"avro",
    }
    table = table.replace_schema_metadata(metadata)
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="snappy")
    return buffer.getvalue()


def data_file_name(rows: Sequence[LSMTimelineInstant], level: int = 0) -> str:
    times = sorted(r.instant_time or "" for r in rows)
    return f"{times[0]}_{times[-1]}_{level}.parquet"


def write_history(storage: Storage, directory: str, rows: Sequence[LSMTimelineInstant]) -> str:
    """Add ``rows`` as a new level-0 file and publish a new manifest version; returns the file."""
    name = data_file_name(rows)
    path = f"{directory}/{name}"
    data = encode_data_file(rows)
    storage.write_bytes(path, data)
    if [r.instant_time for r in read_data_file(storage, path)] != [r.instant_time for r in rows]:
        raise CorruptFileError("the LSM timeline file does not read back", where=storage.uri(path))
    files = [
        f for f in read_manifest(storage, directory, current_version(storage, directory)) if f.name != name
    ]
    versions = manifest_versions(storage, directory)
    new_version = max([current_version(storage, directory), *versions]) + 1
    storage.write_if_absent(
        f"{directory}/{MANIFEST_PREFIX}{new_version}",
        encode_manifest([*files, ManifestFile(name, len(data))]),
    )
    storage.write_bytes(f"{directory}/{VERSION_FILE}", str(new_version).encode("utf-8"))
    return path
