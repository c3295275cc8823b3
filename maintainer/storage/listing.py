"""Directory listings: one entry as a :class:`FileInfo`, and whole directories column-wise.

Loading a table lists every partition; a large lake has millions of entries. A
:class:`DirListing` keeps a directory's entries as parallel columns (names, sizes, types,
modification times) taken straight from pyarrow, so no object is built per entry until some
code asks for :class:`FileInfo` objects. :class:`Listings` maps partition paths to their
listings and reads as ``Mapping[str, tuple[FileInfo, ...]]`` (the entries are built on first
access, once per partition); the file-system view reads the columns directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import pyarrow.fs as pafs

from maintainer.storage.columns import Names, OptionalInts


@dataclass(frozen=True, slots=True)
class FileInfo:
    """One entry of a listing: ``path`` is relative to the storage root."""

    path: str
    size: int
    is_dir: bool
    mtime_ms: int | None = None

    @property
    def name(self) -> str:
        return self.path.rpartition("/")[2]


class SizesOfNames(Protocol):
    """What a names-only listing's column asks (:class:`.names_only.StatsOnDemand`)."""

    @property
    def loaded(self) -> bool: ...

    def sizes_of(self, names: Iterable[str]) -> list[int | None]: ...


def _asked_on_demand(column: Sequence[int | None]) -> SizesOfNames | None:
    """The stats behind a names-only listing's column (None: a column of values)."""
    stats: SizesOfNames | None = getattr(column, "stats", None)
    return stats


@dataclass(frozen=True, slots=True)
class DirListing:
    """The entries directly under ``directory`` (root-relative), as parallel columns."""

    directory: str
    names: Sequence[str]
    sizes: Sequence[int | None]
    """Sizes in bytes (None where the storage reports none, e.g. directories)."""
    is_dir: Sequence[bool]
    mtime_ns: Sequence[int | None]

    @classmethod
    def from_arrow(
        cls, directory: str, infos: Sequence[pafs.FileInfo], *, sized_entries_are_files: bool = False
    ) -> DirListing:
        """Columns of a pyarrow listing of ``directory`` (one pass per attribute), compact
        (:mod:`.columns`): a loaded table's listings are held while its plan is made.
        ``sized_entries_are_files``: the file system never gives a directory a size (pyarrow's
        local one), so ``type`` (an enum built per read, a third of the columns' cost) is
        asked only of entries without one; elsewhere (an S3 folder marker, HDFS) of each."""
        folder = pafs.FileType.Directory
        sizes = [info.size for info in infos]
        if sized_entries_are_files:
            is_dir = [size is None and info.type is folder for info, size in zip(infos, sizes, strict=True)]
        else:
            is_dir = [info.type is folder for info in infos]
        return cls(
            directory,
            Names([info.base_name for info in infos]),
            OptionalInts(sizes),
            is_dir,
            OptionalInts([info.mtime_ns for info in infos]),
        )

    @classmethod
    def from_infos(cls, directory: str, infos: Iterable[FileInfo]) -> DirListing:
        """Columns of entries already built (e.g. a projected listing)."""
        entries = list(infos)
        return cls(
            directory,
            [info.name for info in entries],
            [info.size for info in entries],
            [info.is_dir for info in entries],
            [None if info.mtime_ms is None else info.mtime_ms * 1_000_000 for info in entries],
        )

    def __len__(self) -> int:
        return len(self.names)

    @property
    def sizes_listed(self) -> bool:
        """Whether the listing holds its entries' sizes (a names-only one asks on demand)."""
        stats = _asked_on_demand(self.sizes)
        return stats is None or stats.loaded

    def sizes_of(self, names: Iterable[str]) -> list[int | None]:
        """The sizes of the entries ``names`` (None: not in the listing, or gone since a
        names-only listing); a names-only listing asks storage for just these."""
        stats = _asked_on_demand(self.sizes)
        if stats is not None and not stats.loaded:
            return stats.sizes_of(names)
        known = dict(zip(self.names, self.sizes, strict=True))
        return [known.get(name) for name in names]

    def path_of(self, name: str) -> str:
        """The root-relative path of the entry ``name``."""
        return f"{self.directory}/{name}" if self.directory else name

    def infos(self) -> list[FileInfo]:
        """The entries as :class:`FileInfo` objects, in listing order."""
        prefix = f"{self.directory}/" if self.directory else ""
        return [
            FileInfo(prefix + name, size or 0, is_dir, None if mtime is None else mtime // 1_000_000)
            for name, size, is_dir, mtime in zip(
                self.names, self.sizes, self.is_dir, self.mtime_ns, strict=True
            )
        ]

    def followed_by(self, more: DirListing) -> DirListing:
        """This listing's entries, then ``more``'s (a new listing)."""
        return DirListing(
            self.directory,
            [*self.names, *more.names],
            [*self.sizes, *more.sizes],
            [*self.is_dir, *more.is_dir],
            [*self.mtime_ns, *more.mtime_ns],
        )

    def has_file_starting_with(self, prefix: str) -> bool:
        """Whether the name of an entry that is not a directory starts with ``prefix``."""
        names, is_dir = self.names, self.is_dir
        if isinstance(names, Names):  # searched in the joined names, no list of them built
            return any(not is_dir[index] for index in names.indexes_starting_with(prefix))
        return any(not folder and name.startswith(prefix) for name, folder in zip(names, is_dir, strict=True))

    def subdirectories(self) -> list[str]:
        """Names of the directory entries."""
        return [name for name, is_dir in zip(self.names, self.is_dir, strict=True) if is_dir]


class Listings(Mapping[str, tuple[FileInfo, ...]]):
    """Partition path -> its entries, kept column-wise; reading an item builds (once) its
    :class:`FileInfo` tuple, :meth:`dir_listing` gives the columns without building any."""

    def __init__(self, listings: Mapping[str, DirListing]) -> None:
        self._listings = dict(listings)
        self._built: dict[str, tuple[FileInfo, ...]] = {}

    def dir_listing(self, partition: str) -> DirListing:
        return self._listings[partition]

    def subset(self, partitions: Iterable[str]) -> Listings:
        """The listings of those of ``partitions`` that are listed here."""
        return Listings({p: self._listings[p] for p in partitions if p in self._listings})

    def merged(self, more: Mapping[str, DirListing]) -> Listings:
        """These listings with ``more`` added (or replacing same-named partitions)."""
        return Listings({**self._listings, **more})

    def with_entries(self, added: Mapping[str, Iterable[FileInfo]]) -> Listings:
        """These listings with ``added`` entries appended to their partitions (new partitions
        for the others), column-wise; what was derived from the untouched partitions is kept."""
        extended = dict(self._listings)
        for partition, infos in added.items():
            more = DirListing.from_infos(partition, infos)
            known = extended.get(partition)
            extended[partition] = more if known is None else known.followed_by(more)
        return Listings(extended)

    def without(self, paths: Iterable[str]) -> Listings:
        """These listings without the entries at ``paths`` (root-relative); what was derived
        from the untouched partitions is kept."""
        by_partition: dict[str, set[str]] = {}
        for path in paths:
            partition, _, name = path.rpartition("/")
            by_partition.setdefault(partition, set()).add(name)
        reduced = dict(self._listings)
        for partition, names in by_partition.items():
            known = reduced.get(partition)
            if known is not None and any(n in names for n in known.names):
                kept = [i for i in known.infos() if i.name not in names]
                reduced[partition] = DirListing.from_infos(partition, kept)
        return Listings(reduced)

    def __getitem__(self, partition: str) -> tuple[FileInfo, ...]:
        built = self._built.get(partition)
        if built is None:
            built = tuple(self._listings[partition].infos())
            self._built[partition] = built
        return built

    def __contains__(self, partition: object) -> bool:
        return partition in self._listings

    def __iter__(self) -> Iterator[str]:
        return iter(self._listings)

    def __len__(self) -> int:
        return len(self._listings)

    def __repr__(self) -> str:
        return f"Listings({len(self._listings)} directories)"
