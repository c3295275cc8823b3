"""All file access goes through :class:`Storage`, over ``pyarrow.fs``."""

from maintainer.storage.fs import FileInfo, Storage

__all__ = ["FileInfo", "Storage"]
