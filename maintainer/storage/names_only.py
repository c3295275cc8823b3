"""Names-only listings of local folders: sizes and modification times asked on demand.

On a local disk most of a listing's cost is the ``stat`` of every entry (and pyarrow's object
per entry), yet a clean's rules read only names: which file group, which instant. A
names-only listing reads the folder once (``os.scandir``: names and entry types, no ``stat``)
and leaves sizes and times to :class:`StatsOnDemand`, which asks the disk only for what a
reader wants: the sizes of the files a clean deletes (:meth:`StatsOnDemand.sizes_of`), or
every entry's the first time a reader walks a whole column (:class:`OnDemandColumn`), so any
reader still sees exactly what a full listing would have given it.

What a full local listing keeps out is kept out here too: a symbolic link to a folder is not
listed (a linked folder is never taken as part of the table); a link to a file is listed as the
file it points to (a delete refuses it on its own).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Literal, overload

from maintainer.errors import StorageError
from maintainer.storage.columns import Names, OptionalInts
from maintainer.storage.listing import DirListing

Column = Literal["size", "mtime_ns"]


class StatsOnDemand:
    """The sizes and modification times of a folder's entries, read from the disk when asked.
    An entry gone since the listing has neither (None), as a listing made after it would not
    hold it; a folder has no size (as pyarrow lists it)."""

    __slots__ = ("_folder", "_is_dir", "_names", "_sizes", "_times")

    def __init__(self, folder: str, names: Names, is_dir: Sequence[bool]) -> None:
        self._folder = folder
        self._names = names
        self._is_dir = is_dir
        self._sizes: OptionalInts | None = None
        self._times: OptionalInts | None = None

    @property
    def loaded(self) -> bool:
        """Whether every entry has been stat'ed already (a whole column was read)."""
        return self._sizes is not None

    def __len__(self) -> int:
        return len(self._names)

    def column(self, which: Column) -> OptionalInts:
        """Every entry's size or modification time, in listing order (stat'ed once)."""
        if self._sizes is None or self._times is None:
            self._load()
        column = self._sizes if which == "size" else self._times
        assert column is not None
        return column

    def sizes_of(self, names: Iterable[str]) -> list[int | None]:
        """The sizes of the files ``names`` (of this folder), each stat'ed now unless every
        entry already was."""
        if self._sizes is not None:
            known = dict(zip(self._names, self._sizes, strict=True))
            return [known.get(name) for name in names]
        return _sizes_in(self._folder, names)

    def _load(self) -> None:
        folder = self._folder
        sizes: list[int | None] = []
        times: list[int | None] = []
        for name, is_dir in zip(self._names, self._is_dir, strict=True):
            size, mtime = _stat(os.path.join(folder, name))
            sizes.append(None if is_dir else size)
            times.append(mtime)
        self._sizes, self._times = OptionalInts(sizes), OptionalInts(times)


def _sizes_in(folder: str, names: Iterable[str]) -> list[int | None]:
    """The sizes of ``names`` in ``folder``, each stat'ed relative to the folder opened once (no
    path walk per file); None for a name gone since the listing."""
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return [None for _ in names]
    except OSError as exc:
        raise StorageError(f"cannot open {folder}: {exc}") from exc
    try:
        sizes: list[int | None] = []
        stat = os.stat
        for name in names:
            try:
                sizes.append(stat(name, dir_fd=handle).st_size)
            except FileNotFoundError:
                sizes.append(None)
        return sizes
    except OSError as exc:
        raise StorageError(f"cannot inspect a file in {folder}: {exc}") from exc
    finally:
        os.close(handle)


def _stat(path: str) -> tuple[int | None, int | None]:
    """(size, modification time in ns) of ``path``, following a link as pyarrow's listing
    does; (None, None) where nothing is there any more."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        raise StorageError(f"cannot inspect {path}: {exc}") from exc
    return found.st_size, found.st_mtime_ns


class OnDemandColumn(Sequence["int | None"]):
    """A listing's sizes or times, read from :class:`StatsOnDemand` the first time any value is
    asked (the whole column at once)."""

    __slots__ = ("_which", "stats")

    def __init__(self, stats: StatsOnDemand, which: Column) -> None:
        self.stats = stats
        self._which: Column = which

    @property
    def loaded(self) -> bool:
        return self.stats.loaded

    def values(self) -> OptionalInts:
        return self.stats.column(self._which)

    def __iter__(self) -> Iterator[int | None]:
        return iter(self.values())

    def __len__(self) -> int:
        return len(self.stats)

    @overload
    def __getitem__(self, index: int) -> int | None: ...
    @overload
    def __getitem__(self, index: slice) -> list[int | None]: ...
    def __getitem__(self, index: int | slice) -> int | list[int | None] | None:
        return self.values()[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        state = "stat'ed" if self.loaded else "not stat'ed yet"
        return f"OnDemandColumn({self._which}, {len(self)} entries, {state})"

    def __reduce__(self) -> tuple[type[OptionalInts], tuple[list[int | None]]]:
        """Pickled as its values (a task elsewhere has no business with this disk)."""
        return (OptionalInts, (list(self.values()),))


def list_names_only(folder: str, directory: str) -> DirListing:
    """The entries of the local ``folder`` (listed as ``directory``, root-relative) with their
    types from the folder itself and sizes and times on demand; empty where it does not exist."""
    names: list[str] = []
    is_dir: list[bool] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.is_symlink():
                    if _is_dir_behind_link(entry):
                        continue  # a linked folder is never part of this table
                    names.append(entry.name)
                    is_dir.append(False)
                else:
                    names.append(entry.name)
                    is_dir.append(entry.is_dir(follow_symlinks=False))
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise StorageError(f"cannot list {folder}: {exc}") from exc
    listed = Names(names)
    stats = StatsOnDemand(folder, listed, is_dir)
    return DirListing(
        directory, listed, OnDemandColumn(stats, "size"), is_dir, OnDemandColumn(stats, "mtime_ns")
    )


def _is_dir_behind_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:  # a dangling link: not a folder
        return False
