"""All file access goes through :class:`Storage`, over ``pyarrow.fs``; conditional writes (the
table lock's, write-once instant files on object stores) through
:mod:`maintainer.storage.conditional`."""

from maintainer.storage.conditional import ConditionalStore, Versioned, conditional_store
from maintainer.storage.fences import clear_write_fence, set_write_fence
from maintainer.storage.fs import FileInfo, Storage

__all__ = [
    "ConditionalStore",
    "FileInfo",
    "Storage",
    "Versioned",
    "clear_write_fence",
    "conditional_store",
    "set_write_fence",
]
