"""Local disks: paths of local URIs, symbolic links kept out of listings, and where an opened
folder really is (so a delete never follows a link out of the table)."""

from __future__ import annotations

import os

from maintainer.storage.listing import DirListing

OUTSIDE_HINT = (
    "maintainer only deletes or moves files inside the table's own folders; remove the link by hand if it "
    "does not belong there"
)


def is_local_uri(uri: str) -> bool:
    return "://" not in uri or uri.startswith("file://")


def local_path(uri: str) -> str:
    path = uri[len("file://") :] if uri.startswith("file://") else uri
    return os.path.abspath(os.path.expanduser(path))


def without_linked_dirs(listing: DirListing, folder: str) -> DirListing:
    """The listing without symbolic links to folders: a linked folder (say, another table's
    partition) is never taken as part of this table. Only folders are checked (a few per
    listing, none in most partitions); a delete refuses a linked file on its own."""
    if not any(listing.is_dir):
        return listing
    linked = {
        name
        for name, is_dir in zip(listing.names, listing.is_dir, strict=True)
        if is_dir and os.path.islink(os.path.join(folder, name))
    }
    if not linked:
        return listing
    kept = [
        entry
        for entry in zip(listing.names, listing.sizes, listing.is_dir, listing.mtime_ns, strict=True)
        if entry[0] not in linked
    ]
    return DirListing(
        listing.directory,
        [name for name, _, _, _ in kept],
        [size for _, size, _, _ in kept],
        [is_dir for _, _, is_dir, _ in kept],
        [mtime for _, _, _, mtime in kept],
    )


_PROC_FD = "/proc/self/fd"


def opened_folder_path(handle: int, path: str) -> tuple[str, bool]:
    """Where the folder open as ``handle`` (opened from ``path``) really is, and whether that is
    surely the folder opened. Linux names a descriptor's own folder in ``/proc/self/fd`` (one
    call, and it is the opened folder whatever happened to ``path`` since); elsewhere the path is
    resolved again, and the folder there must be the one opened."""
    if os.path.isdir(_PROC_FD):
        try:
            return os.readlink(f"{_PROC_FD}/{handle}"), True
        except OSError:
            pass  # a /proc that does not name descriptors: as elsewhere
    where = os.path.realpath(path)
    opened, resolved = os.fstat(handle), os.stat(where)
    return where, (opened.st_dev, opened.st_ino) == (resolved.st_dev, resolved.st_ino)


def is_within(resolved: str, root: str) -> bool:
    """Whether the resolved local path ``resolved`` is ``root`` or below it."""
    return resolved == root or resolved.startswith(root.rstrip(os.sep) + os.sep)
