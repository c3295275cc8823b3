"""Loading a table's state from storage: properties, active timeline, partitions, listings.

Reading never writes. Partitions are found level by level with parallel listings (the
directories that hold a ``.hoodie_partition_metadata`` file, or the base path for a
non-partitioned table).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from maintainer.errors import CorruptFileError, StorageError, TableFormatError
from maintainer.hudi.filenames import is_junk, is_partition_metadata
from maintainer.hudi.properties import PROPERTIES_FILE, TableConfig, parse_table_config
from maintainer.hudi.timeline import Timeline
from maintainer.storage import FileInfo, Storage

PROPERTIES_BACKUP = ".hoodie/hoodie.properties.backup"
METADATA_TABLE_DIR = ".hoodie/metadata"
HEARTBEAT_DIR = ".hoodie/.heartbeat"
MARKERS_DIR = ".hoodie/.temp"


@dataclass(frozen=True, slots=True)
class MetadataTableInfo:
    """The metadata table, as far as the tool needs it: present, and which partitions."""

    exists: bool
    partitions: tuple[str, ...]
    inflight_partitions: tuple[str, ...]

    @property
    def enabled(self) -> bool:
        return self.exists or bool(self.partitions) or bool(self.inflight_partitions)


@dataclass(frozen=True)
class TableSnapshot:
    """Everything read from storage about one table at one moment."""

    base_uri: str
    config: TableConfig
    timeline: Timeline
    listings: Mapping[str, tuple[FileInfo, ...]]
    metadata_table: MetadataTableInfo
    heartbeats: Mapping[str, int] = field(default_factory=dict)
    """Instant time -> heartbeat file modification time (epoch ms)."""

    @property
    def partitions(self) -> list[str]:
        return sorted(self.listings)


def load_config(storage: Storage) -> TableConfig:
    """Read ``hoodie.properties``; where it is missing or corrupt (empty, cut short, checksum
    mismatch) read ``hoodie.properties.backup``, as Hudi does when an update was cut short."""
    first_error: CorruptFileError | None = None
    for path in (PROPERTIES_FILE, PROPERTIES_BACKUP):
        if not storage.exists(path):
            continue
        try:
            return parse_table_config(storage.read_bytes(path), where=storage.uri(path))
        except CorruptFileError as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise first_error
    raise TableFormatError(
        "not a Hudi table: .hoodie/hoodie.properties not found",
        where=storage.base_uri,
        hint="check the table path in the manifest (it must be the table's base path, the "
        "directory that holds .hoodie/)",
    )


def load_timeline(storage: Storage, config: TableConfig) -> Timeline:
    names = [info.name for info in storage.list_dir(config.timeline_dir) if not info.is_dir]
    return Timeline.from_file_names(names, config.timeline_layout, config.timeline_dir)


def _is_hidden_dir(name: str) -> bool:
    return name.startswith((".", "_")) or is_junk(name)


def discover_partitions(storage: Storage, config: TableConfig) -> dict[str, tuple[FileInfo, ...]]:
    """Partition path -> its entries, found breadth-first with parallel listings."""
    root_entries = storage.list_dir("")
    if not config.is_partitioned:
        return {"": tuple(root_entries)}
    found: dict[str, tuple[FileInfo, ...]] = {}
    frontier = {"": root_entries}
    while frontier:
        children = [
            e.path
            for entries in frontier.values()
            for e in entries
            if e.is_dir and not _is_hidden_dir(e.name)
        ]
        listed = storage.list_dirs(children)
        frontier = {}
        for path, entries in listed.items():
            if any(not e.is_dir and is_partition_metadata(e.name) for e in entries):
                found[path] = tuple(entries)
            else:
                frontier[path] = entries
    return dict(sorted(found.items()))


def load_metadata_table_info(storage: Storage, config: TableConfig) -> MetadataTableInfo:
    exists = storage.exists(f"{METADATA_TABLE_DIR}/.hoodie/hoodie.properties")
    return MetadataTableInfo(exists, config.metadata_partitions, config.metadata_partitions_inflight)


def load_heartbeats(storage: Storage) -> dict[str, int]:
    return {info.name: info.mtime_ms or 0 for info in storage.list_dir(HEARTBEAT_DIR) if not info.is_dir}


def load_snapshot(storage: Storage, partitions: Iterable[str] | None = None) -> TableSnapshot:
    """Read the table's state. ``partitions`` limits the listing (incremental planning)."""
    config = load_config(storage)
    timeline = load_timeline(storage, config)
    if partitions is None:
        listings = discover_partitions(storage, config)
    else:
        listings = {p: tuple(entries) for p, entries in storage.list_dirs(sorted(set(partitions))).items()}
    try:
        heartbeats = load_heartbeats(storage)
    except StorageError:
        heartbeats = {}
    return TableSnapshot(
        base_uri=storage.base_uri,
        config=config,
        timeline=timeline,
        listings=listings,
        metadata_table=load_metadata_table_info(storage, config),
        heartbeats=heartbeats,
    )
