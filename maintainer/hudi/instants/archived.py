"""Reading the table-version-8 archived timeline: the LSM history in ``.hoodie/timeline/history/``.

* data files ``<minInstant>_<maxInstant>_<level>.parquet``: rows of ``HoodieLSMTimelineInstant``
  (Parquet written from the Avro schema, which the footer carries as ``parquet.avro.schema``);
* ``manifest_<N>``: the valid data files, Jackson-pretty JSON ``{"files":[{"fileName","fileLen"}]}``;
* ``_version_``: the latest manifest version N (without it, the greatest manifest).

Readers take only the current version's files; a data file or manifest an archival cut short
left unreferenced is ignored. The write side is ``maintainer.executors.archive.lsm``.

:class:`ArchivedCompletionTimes` answers the question the file-system view and the compaction
planner ask of archived instants: when did a deltacommit older than the active timeline
complete (Hudi's ``CompletionTimeQueryViewV2``, which loads the archived timeline lazily).
"""

from __future__ import annotations

import io
import re
import threading
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError
from maintainer.hudi.payloads import LSMTimelineInstant
from maintainer.storage import Storage
from maintainer.storage.limits import MAX_INSTANT_FILE_BYTES, loads_bounded, read_capped

VERSION_FILE = "_version_"
MANIFEST_PREFIX = "manifest_"
_LSM_HINT = (
    "the table's archived timeline is damaged: restore .hoodie/timeline/history from a backup of the table"
)
DATA_FILE_RE = re.compile(r"^(\d+)_(\d+)_(\d+)\.parquet$")
INSTANT_TIME, COMPLETION_TIME = "instantTime", "completionTime"


@dataclass(frozen=True, slots=True)
class ManifestFile:
    name: str
    length: int

    def instant_range(self) -> tuple[str, str] | None:
        """The (min, max) instant times the data file's name gives (None: not a data file name)."""
        match = DATA_FILE_RE.match(self.name)
        return (match.group(1), match.group(2)) if match else None


def manifest_versions(storage: Storage, directory: str) -> list[int]:
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
    versions = manifest_versions(storage, directory)
    return versions[-1] if versions else 0


def read_manifest(storage: Storage, directory: str, version: int) -> list[ManifestFile]:
    if version == 0:
        return []
    path = f"{directory}/{MANIFEST_PREFIX}{version}"
    where = storage.uri(path)
    raw = read_capped(
        storage, path, MAX_INSTANT_FILE_BYTES, what="LSM timeline manifest", error=CorruptFileError
    )
    data = loads_bounded(
        raw, what="the LSM timeline manifest", where=where, error=CorruptFileError, hint=_LSM_HINT
    )
    try:
        return [ManifestFile(f["fileName"], int(f["fileLen"])) for f in data["files"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptFileError(f"invalid LSM timeline manifest: {exc}", where=where) from exc


def current_files(storage: Storage, directory: str) -> list[ManifestFile]:
    """The data files of the current version."""
    return read_manifest(storage, directory, current_version(storage, directory))


def read_data_file(storage: Storage, path: str) -> list[LSMTimelineInstant]:
    try:
        table = pq.read_table(io.BytesIO(storage.read_bytes(path)))
    except (pa.ArrowException, OSError) as exc:
        raise CorruptFileError(f"unreadable LSM timeline file: {exc}", where=storage.uri(path)) from exc
    return [LSMTimelineInstant.from_record(row) for row in table.to_pylist()]


def archived_instants(storage: Storage, directory: str, since: str | None = None) -> list[LSMTimelineInstant]:
    """Rows of the current version's data files (only files reaching ``since`` or later)."""
    rows = []
    for manifest_file in current_files(storage, directory):
        found = manifest_file.instant_range()
        if since is not None and found is not None and found[1] < since:
            continue
        rows += read_data_file(storage, f"{directory}/{manifest_file.name}")
    return rows


def read_completion_times(storage: Storage, path: str) -> dict[str, str]:
    """Instant time -> completion time of one data file, reading just those two columns (the
    instants' metadata and plans, most of the bytes, stay unread). A row without completion
    time completed at its instant time, as Hudi's reader takes it."""
    try:
        with storage.open_input_file(path) as source:
            table = pq.read_table(source, columns=[INSTANT_TIME, COMPLETION_TIME])
    except (pa.ArrowException, OSError, KeyError) as exc:
        raise CorruptFileError(f"unreadable LSM timeline file: {exc}", where=storage.uri(path)) from exc
    times: dict[str, str] = {}
    instants = table.column(INSTANT_TIME).to_pylist()
    completions = table.column(COMPLETION_TIME).to_pylist()
    for instant, completion in zip(instants, completions, strict=True):
        if instant is not None:
            times.setdefault(instant, completion or instant)
    return times


class ArchivedCompletionTimes:
    """Completion times of archived instants, read from the LSM history only when asked.

    Hudi's ``CompletionTimeQueryViewV2.getCompletionTime`` loads the archived timeline lazily,
    from the asked instant up to what it already holds. Here the manifest is read on the first
    question, then only the data files whose instant range (in their names) holds an asked
    instant, once each and two columns of each. Unknown instants give None. Thread-safe; it
    pickles without what it cached.
    """

    def __init__(self, storage: Storage, directory: str) -> None:
        self._start(storage, directory)

    def _start(self, storage: Storage, directory: str) -> None:
        self._storage = storage
        self._directory = directory
        self._lock = threading.Lock()
        self._unread: list[ManifestFile] | None = None
        self._times: dict[str, str] = {}
        self.files_read: list[str] = []
        """Names of the data files read so far (the manifest not counted)."""

    @property
    def directory(self) -> str:
        return self._directory

    def __getstate__(self) -> dict[str, Any]:
        return {"storage": self._storage, "directory": self._directory}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._start(state["storage"], state["directory"])

    def completion_time(self, instant: str) -> str | None:
        """When archived instant ``instant`` completed; None when the history does not hold it."""
        found = self._times.get(instant)
        if found is not None:
            return found
        with self._lock:
            if self._unread is None:
                self._unread = current_files(self._storage, self._directory)
            covering = [f for f in self._unread if _may_hold(f, instant)]
            for manifest_file in covering:
                path = f"{self._directory}/{manifest_file.name}"
                for time, completion in read_completion_times(self._storage, path).items():
                    self._times.setdefault(time, completion)
                self.files_read.append(manifest_file.name)
            if covering:
                self._unread = [f for f in self._unread if f not in covering]
            return self._times.get(instant)


def _may_hold(manifest_file: ManifestFile, instant: str) -> bool:
    found = manifest_file.instant_range()
    return found is None or found[0] <= instant <= found[1]
