"""The HFile model: cells, the two writer styles, and one decoded file.

An HFile stores sorted cells plus a file-info map and named meta blocks. Hudi's metadata table
writes them with one of two writers, told apart by the trailer's minor version:

* :attr:`HFileStyle.HUDI`: Hudi 1.1's own ``org.apache.hudi.io.hfile.HFileWriterImpl`` (table
  version 9). Minor version 0, checksum type NULL (the checksum bytes are zeros), file info in
  Java ``HashMap`` order.
* :attr:`HFileStyle.HBASE`: HBase's ``HFileWriterImpl`` (Hudi 1.0, table version 8). Minor
  version 3, CRC32C checksums, file info sorted by key bytes.
"""

from __future__ import annotations

import bisect
import enum
from dataclasses import dataclass

LAST_KEY = b"hfile.LASTKEY"
AVG_KEY_LEN = b"hfile.AVG_KEY_LEN"
AVG_VALUE_LEN = b"hfile.AVG_VALUE_LEN"
CREATE_TIME_TS = b"hfile.CREATE_TIME_TS"
MAX_MEMSTORE_TS_KEY = b"MAX_MEMSTORE_TS_KEY"
KEY_VALUE_VERSION = b"KEY_VALUE_VERSION"

# The file-info entries both writers derive from the cells (HFileWriterImpl.finishFileInfo and
# close/initFileInfo). hfile.CREATE_TIME_TS is not among them: it is the writer's creation time,
# an input (HFileContext.fileCreateTime), so it stays in HFile.user_file_info().
COMPUTED_FILE_INFO_KEYS = frozenset(
    {LAST_KEY, AVG_KEY_LEN, AVG_VALUE_LEN, MAX_MEMSTORE_TS_KEY, KEY_VALUE_VERSION}
)

COMPARATOR_CLASS_NAME = "org.apache.hudi.io.storage.HoodieHBaseKVComparator"
GZ_CODEC = 1  # HBase Compression.Algorithm.GZ ordinal; Hudi's CompressionCodec.GZIP id
NONE_CODEC = 2  # Compression.Algorithm.NONE: blocks stored uncompressed
KV_COMPARATOR_CLASS_NAME = "org.apache.hadoop.hbase.KeyValue$KVComparator"
"""HBase's own comparator of KeyValue keys: the same order as Hudi's (which extends HBase's
``CellComparatorImpl``), written by HBase's writer when Hudi's comparator is not set."""


@dataclass(frozen=True, slots=True)
class HFileCell:
    """One cell: the record key (the KeyValue row) and the opaque value bytes."""

    key: bytes
    value: bytes


class HFileStyle(enum.Enum):
    """Which writer produced (or is to produce) a file; see the module docstring."""

    HUDI = "hudi"
    HBASE = "hbase"

    @property
    def minor_version(self) -> int:
        """The trailer's minor version (major is always 3)."""
        return 0 if self is HFileStyle.HUDI else 3

    @property
    def checksum_type(self) -> int:
        """HBase ``ChecksumType`` code in every block header: NULL (0) or CRC32C (2)."""
        return 0 if self is HFileStyle.HUDI else 2


@dataclass(frozen=True)
class HFile:
    """A decoded HFile: cells in file (key) order, file info and meta blocks in file order."""

    cells: tuple[HFileCell, ...]
    file_info: tuple[tuple[bytes, bytes], ...]
    meta_blocks: tuple[tuple[str, bytes], ...]
    style: HFileStyle

    def get(self, key: bytes) -> bytes | None:
        """The value stored under ``key``, or None."""
        index = bisect.bisect_left(self.cells, key, key=lambda cell: cell.key)
        if index < len(self.cells) and self.cells[index].key == key:
            return self.cells[index].value
        return None

    def keys(self) -> tuple[bytes, ...]:
        return tuple(cell.key for cell in self.cells)

    def user_file_info(self) -> dict[bytes, bytes]:
        """The file info minus the entries the writer derives from the cells, in file order."""
        return {name: value for name, value in self.file_info if name not in COMPUTED_FILE_INFO_KEYS}
