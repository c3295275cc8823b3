"""The table-version-8 archived timeline: the LSM history in ``.hoodie/timeline/history/``.

* data files ``<minInstant>_<maxInstant>_<level>.parquet``: rows of ``HoodieLSMTimelineInstant``
  (Parquet written from the Avro schema, which the footer carries as ``parquet.avro.schema``);
* ``manifest_<N>``: the valid data files, Jackson-pretty JSON ``{"files":[{"fileName","fileLen"}]}``;
* ``_version_``: the latest manifest version N.

An archival adds one level-0 file, then a new manifest listing it with the previous files, then
moves ``_version_`` to it; only then are instant files deleted. A run cut short leaves either an
unreferenced data file or manifest (ignored by readers) or a complete new version.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError
from maintainer.hudi.payloads import LSMTimelineInstant, schema_text
from maintainer.hudi.payloads.jackson import dumps as jackson_dumps
from maintainer.storage import Storage

VERSION_FILE = "_version_"
MANIFEST_PREFIX = "manifest_"
_DATA_FILE_RE = re.compile(r"^(\d+)_(\d+)_(\d+)\.parquet$")

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


@dataclass(frozen=True, slots=True)
class ManifestFile:
    name: str
    length: int


def _manifest_versions(storage: Storage, directory: str) -> list[int]:
    return sorted(
        int(info.name[len(MANIFEST_PREFIX) :])
        for info in storage.list_dir(directory)
        if info.name.startswith(MANIFEST_PREFIX) and info.name[len(MANIFEST_PREFIX) :].isdigit()
    )


def current_version(storage: Storage, directory: str) -> int:
    """The manifest version ``_version_`` names (0: no history yet)."""
    path = f"{directory}/{VERSION_FILE}"
    if storage.exists(path):
        text = storage.read_bytes(path).decode("utf-8", errors="replace").strip()
        if text.isdigit():
            return int(text)
    versions = _manifest_versions(storage, directory)
    return versions[-1] if versions else 0


def read_manifest(storage: Storage, directory: str, version: int) -> list[ManifestFile]:
    if version == 0:
        return []
    path = f"{directory}/{MANIFEST_PREFIX}{version}"
    try:
        data = json.loads(storage.read_bytes(path))
        return [ManifestFile(f["fileName"], int(f["fileLen"])) for f in data["files"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptFileError(f"invalid LSM timeline manifest: {exc}", where=storage.uri(path)) from exc


def encode_manifest(files: Sequence[ManifestFile]) -> bytes:
    body = {"files": [{"fileName": f.name, "fileLen": f.length} for f in files]}
    return jackson_dumps(body).encode("utf-8")


def read_data_file(storage: Storage, path: str) -> list[LSMTimelineInstant]:
    try:
        table = pq.read_table(io.BytesIO(storage.read_bytes(path)))
    except (pa.ArrowException, OSError) as exc:
        raise CorruptFileError(f"unreadable LSM timeline file: {exc}", where=storage.uri(path)) from exc
    return [LSMTimelineInstant.from_record(row) for row in table.to_pylist()]


def archived_instants(storage: Storage, directory: str, since: str | None = None) -> list[LSMTimelineInstant]:
    """Rows of the current version's data files (only files reaching ``since`` or later)."""
    rows = []
    for manifest_file in read_manifest(storage, directory, current_version(storage, directory)):
        match = _DATA_FILE_RE.match(manifest_file.name)
        if since is not None and match is not None and match.group(2) < since:
            continue
        rows += read_data_file(storage, f"{directory}/{manifest_file.name}")
    return rows


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
    versions = _manifest_versions(storage, directory)
    new_version = max([current_version(storage, directory), *versions]) + 1
    storage.write_if_absent(
        f"{directory}/{MANIFEST_PREFIX}{new_version}",
        encode_manifest([*files, ManifestFile(name, len(data))]),
    )
    storage.write_bytes(f"{directory}/{VERSION_FILE}", str(new_version).encode("utf-8"))
    return path
