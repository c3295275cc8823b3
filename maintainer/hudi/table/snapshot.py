"""Loading a table's state from storage: properties, active timeline, partitions, listings.

Reading never writes. Partitions are found level by level with parallel listings (the
directories that hold a ``.hoodie_partition_metadata`` file, or the base path for a
non-partitioned table).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from maintainer.errors import CorruptFileError, StorageError, TableFormatError
from maintainer.hudi.config.properties import (
    PROPERTIES_FILE,
    TableConfig,
    parse_table_config,
    read_properties_file,
)
from maintainer.hudi.file_groups.filenames import PARTITION_METADATA_PREFIX, is_junk
from maintainer.hudi.instants.archived import ArchivedCompletionTimes
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import FileInfo, Storage
from maintainer.storage.listing import DirListing, Listings

PROPERTIES_BACKUP = ".hoodie/hoodie.properties.backup"
METADATA_TABLE_DIR = ".hoodie/metadata"
HEARTBEAT_DIR = ".hoodie/.heartbeat"
"""``HoodieTableMetaClient.getHeartbeatFolderPath``: below ``.hoodie`` on every table version."""
MARKERS_DIR = ".hoodie/.temp"


@dataclass(frozen=True, slots=True)
class MetadataTableInfo:
    """The metadata table, as far as the tool needs it: present, and which partitions."""

    exists: bool
    partitions: tuple[str, ...]
    inflight_partitions: tuple[str, ...]
    timeline: Timeline | None = field(default=None, compare=False, repr=False)
    """Its active timeline, where the command that read the table read it already (planning
    with ``metadata_table: sync``), so that nothing lists it again; None: not read."""

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
    """Partition path -> its entries (loaded: a column-wise :class:`Listings`)."""
    metadata_table: MetadataTableInfo
    heartbeats: Mapping[str, int] = field(default_factory=dict)
    """Instant time -> heartbeat file modification time (epoch ms)."""

    @property
    def partitions(self) -> list[str]:
        return sorted(self.listings)

    def listed_sizes(self) -> ListedSizes:
        return ListedSizes(self.listings)


class ListedSizes:
    """The size of a file (table-relative path) as its partition's listing has it; None where
    the partition was not listed or the file is not in it. Each partition's names are indexed
    when first asked."""

    def __init__(self, listings: Mapping[str, tuple[FileInfo, ...]]) -> None:
        self._listings = listings
        self._by_partition: dict[str, dict[str, int]] = {}

    def __call__(self, path: str) -> int | None:
        partition, _, name = path.rpartition("/")
        sizes = self._by_partition.get(partition)
        if sizes is None:
            if partition not in self._listings:
                return None
            entries = self._listings[partition]
            sizes = {info.name: info.size for info in entries if not info.is_dir}
            self._by_partition[partition] = sizes
        return sizes.get(name)


def load_config(storage: Storage) -> TableConfig:
    """Read ``hoodie.properties``; where it is missing or corrupt (empty, cut short, checksum
    mismatch) read ``hoodie.properties.backup``, as Hudi's ``ConfigUtils.fetchConfigs`` does when
    an update was cut short (never written here: the config then says why, in
    ``properties_problem``, and :mod:`maintainer.hudi.file_groups.integrity` refuses to maintain the table
    until it is recovered)."""
    problem: CorruptFileError | None = None
    if storage.exists(PROPERTIES_FILE):
        try:
            return parse_table_config(read_properties_file(storage), where=storage.uri(PROPERTIES_FILE))
        except CorruptFileError as exc:
            problem = exc
    if storage.exists(PROPERTIES_BACKUP):
        try:
            config = parse_table_config(
                read_properties_file(storage, PROPERTIES_BACKUP), where=storage.uri(PROPERTIES_BACKUP)
            )
        except CorruptFileError as exc:
            raise problem or exc from exc
        why = problem.message if problem is not None else "it is missing (a properties update was cut short)"
        return replace(config, properties_problem=why)
    if problem is not None:
        raise problem
    raise TableFormatError(
        "not a Hudi table: .hoodie/hoodie.properties not found",
        where=storage.base_uri,
        hint="check the table path in the manifest (it must be the table's base path, the "
        "directory that holds .hoodie/)",
    )


def load_timeline(storage: Storage, config: TableConfig) -> Timeline:
    """The active timeline; on layout 2 with the LSM history as the source of archived
    completion times (read only if asked)."""
    listing = storage.list_dir_columns(config.timeline_dir)
    names = [name for name, is_dir in zip(listing.names, listing.is_dir, strict=True) if not is_dir]
    layout = config.timeline_layout
    archived = ArchivedCompletionTimes(storage, config.archive_dir) if layout.has_lsm_history else None
    return Timeline.from_file_names(names, config.timeline_layout, config.timeline_dir, archived)


def _is_hidden_dir(name: str) -> bool:
    return name.startswith((".", "_")) or is_junk(name)


def _child_paths(listing: DirListing) -> list[str]:
    return [listing.path_of(name) for name in listing.subdirectories() if not _is_hidden_dir(name)]


def discover_partitions(storage: Storage, config: TableConfig, *, sizes: bool = True) -> Listings:
    """Partition path -> its entries, found breadth-first with parallel listings (``sizes``:
    see :meth:`Storage.list_dir_columns`)."""
    root = storage.list_dir_columns("", sizes=sizes)
    if not config.is_partitioned:
        return Listings({"": root})
    found: dict[str, DirListing] = {}
    frontier = [root]
    while frontier:
        children = [path for listing in frontier for path in _child_paths(listing)]
        listed = storage.list_dirs_columns(children, sizes=sizes)
        frontier = []
        for path, listing in listed.items():
            if listing.has_file_starting_with(PARTITION_METADATA_PREFIX):
                found[path] = listing
            else:
                frontier.append(listing)
    return Listings(dict(sorted(found.items())))


def load_metadata_table_info(storage: Storage, config: TableConfig) -> MetadataTableInfo:
    exists = storage.exists(f"{METADATA_TABLE_DIR}/.hoodie/hoodie.properties")
    return MetadataTableInfo(exists, config.metadata_partitions, config.metadata_partitions_inflight)


def load_heartbeats(storage: Storage) -> dict[str, int]:
    return {info.name: info.mtime_ms or 0 for info in storage.list_dir(HEARTBEAT_DIR) if not info.is_dir}


def load_snapshot(
    storage: Storage,
    partitions: Iterable[str] | None = None,
    listed: Listings | None = None,
    *,
    config: TableConfig | None = None,
    timeline: Timeline | None = None,
    metadata_table: MetadataTableInfo | None = None,
    sizes: bool = True,
) -> TableSnapshot:
    """Read the table's state. ``partitions`` limits the listing (incremental planning);
    ``listed`` replaces it (the listing of the table's metadata table). ``config``, ``timeline``
    and ``metadata_table``: what the caller already read in this command (the other two need
    ``config``), so ``hoodie.properties`` is read and the timeline listed once per table per
    command. ``sizes=False``: the readers mostly need names; local partitions are listed
    without a ``stat`` per file (sizes asked on demand, :mod:`maintainer.storage.names_only`)."""
    if config is None and (timeline is not None or metadata_table is not None):
        raise ValueError("what was read earlier needs the config it was read with")
    config = config if config is not None else load_config(storage)
    timeline = timeline if timeline is not None else load_timeline(storage, config)
    if listed is not None:
        listings = listed
    elif partitions is None:
        listings = discover_partitions(storage, config, sizes=sizes)
    else:
        listings = Listings(storage.list_dirs_columns(sorted(set(partitions)), sizes=sizes))
    try:
        heartbeats = load_heartbeats(storage)
    except StorageError:
        heartbeats = {}
    return TableSnapshot(
        base_uri=storage.base_uri,
        config=config,
        timeline=timeline,
        listings=listings,
        metadata_table=metadata_table or load_metadata_table_info(storage, config),
        heartbeats=heartbeats,
    )
