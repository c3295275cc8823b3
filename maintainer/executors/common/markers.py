"""Read an instant's write markers (``.hoodie/.temp/<instant>/``), both kinds Hudi writes.

* DIRECT: one empty file per data file, ``<partition>/<file>.marker.<CREATE|MERGE|APPEND>``;
* TIMELINE_SERVER_BASED: a ``MARKERS.type`` file saying so, and ``MARKERS<n>`` files listing the
  marker paths (same form, relative to the instant's marker directory), one per line.
"""

from __future__ import annotations

from dataclasses import dataclass

from maintainer.hudi.file_groups.filenames import MarkerName, MarkerType
from maintainer.hudi.table.snapshot import MARKERS_DIR
from maintainer.storage import Storage

MARKER_TYPE_FILE = "MARKERS.type"
TIMELINE_SERVER_BASED = "TIMELINE_SERVER_BASED"
MARKERS_FILE_PREFIX = "MARKERS"


@dataclass(frozen=True, slots=True)
class Marker:
    """A write marker: the data file a write created, merged or appended to."""

    partition: str
    file_name: str
    marker_type: MarkerType

    @property
    def path(self) -> str:
        return f"{self.partition}/{self.file_name}" if self.partition else self.file_name


def marker_dir(instant_time: str) -> str:
    return f"{MARKERS_DIR}/{instant_time}"


def parse_marker_path(relative: str) -> Marker | None:
    """A marker from its path below the instant's marker directory; None for other files."""
    partition, _, name = relative.strip("/").rpartition("/")
    parsed = MarkerName.parse(name)
    if parsed is None:
        return None
    return Marker(partition, parsed.data_file_name, parsed.marker_type)


def _timeline_server_markers(storage: Storage, directory: str) -> list[Marker]:
    markers = []
    for info in storage.list_dir(directory):
        if info.is_dir or not info.name.startswith(MARKERS_FILE_PREFIX) or info.name == MARKER_TYPE_FILE:
            continue
        text = storage.read_bytes(info.path).decode("utf-8", errors="replace")
        markers += [m for line in text.splitlines() if (m := parse_marker_path(line.strip())) is not None]
    return markers


def _direct_markers(storage: Storage, directory: str) -> list[Marker]:
    prefix = directory + "/"
    return [
        marker
        for info in storage.list_recursive(directory)
        if not info.is_dir and (marker := parse_marker_path(info.path[len(prefix) :])) is not None
    ]


def read_markers(storage: Storage, instant_time: str) -> tuple[Marker, ...]:
    """The markers an instant left (empty where it left none)."""
    directory = marker_dir(instant_time)
    type_file = f"{directory}/{MARKER_TYPE_FILE}"
    if storage.exists(type_file):
        kind = storage.read_bytes(type_file).decode("utf-8", errors="replace").strip()
        if kind == TIMELINE_SERVER_BASED:
            return tuple(_timeline_server_markers(storage, directory))
    return tuple(_direct_markers(storage, directory))
