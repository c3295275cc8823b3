"""Reading a file slice for a rewrite (compaction, clustering): its base file row group by row
group (:class:`BaseFileReader`) and the effective blocks of its log files (:func:`read_logs`),
which :mod:`.log_state` folds and :mod:`.base_merge` joins with the base rows.

Which data is committed is decided by :class:`CommittedInstants` (completed on the timeline, or
older than it); corrupt log blocks (what a crashed append leaves) are skipped and counted, as
Hudi's log record scanner does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from maintainer.errors import CorruptFileError, StorageError, UnsupportedTableError
from maintainer.hudi import logformat
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.logformat import BlockType, LogBlock
from maintainer.hudi.parquet.basefile import file_codec
from maintainer.storage import Storage


@dataclass(frozen=True, slots=True)
class CommittedInstants:
    """Is data written at an instant committed? (completed, or older than the timeline)."""

    completed: frozenset[str]
    timeline_start: str | None

    @classmethod
    def of(cls, timeline: Timeline) -> CommittedInstants:
        return cls(frozenset(timeline.completed_commit_times()), timeline.write_timeline_start())

    def __call__(self, instant: str) -> bool:
        return instant in self.completed or (
            self.timeline_start is not None and instant < self.timeline_start
        )


@functools.cache
def parquet_format() -> Any:
    """pyarrow's dataset Parquet format, which reads base files as fragments of a known size
    (:class:`BaseFileReader`). Imported when first read: ``pyarrow.dataset`` imports pandas,
    a fifth of a second that every ``maintainer`` command would otherwise pay at start."""
    import pyarrow.dataset as pads

    return pads.ParquetFileFormat()


class BaseFileReader:
    """The slice's base file, opened once: its codec (from the footer) and its row groups.
    Given its ``size``, it is read as a dataset fragment of that size: the same row groups,
    the same ranged reads, and no request for the size (pyarrow's ``open_input_file`` takes
    none)."""

    def __init__(self, storage: Storage, path: str, size: int | None = None) -> None:
        self.where = storage.uri(path)
        self._handle: pa.NativeFile | None = None
        try:
            if size is None:
                self._handle = storage.open_input_file(path)
                parquet = pq.ParquetFile(self._handle)
                self.metadata = parquet.metadata
                self._read: Callable[[int], pa.Table] = parquet.read_row_group
            else:
                full_path = storage.full_path(path)
                fragment = parquet_format().make_fragment(full_path, storage.arrow_fs, file_size=size)
                self.metadata = fragment.metadata
                self._read = lambda index: fragment.subset(row_group_ids=[index]).to_table()
        except FileNotFoundError as exc:
            self.close()
            raise StorageError(f"file not found: {self.where}") from exc
        except (pa.ArrowException, OSError) as exc:
            self.close()
            raise CorruptFileError(f"cannot read base file: {exc}", where=self.where) from exc

    @property
    def codec(self) -> str | None:
        return file_codec(self.metadata)

    def row_groups(self) -> Iterator[pa.Table]:
        """The row groups, one at a time."""
        try:
            for index in range(self.metadata.num_row_groups):
                yield self._read(index)
        except (StorageError, UnsupportedTableError):
            raise
        except (pa.ArrowException, OSError) as exc:
            raise CorruptFileError(f"cannot read base file: {exc}", where=self.where) from exc

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()

    def __enter__(self) -> BaseFileReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class LogRead:
    """The effective blocks of a slice's log files, and what was read to find them."""

    blocks: list[LogBlock]
    total_blocks: int
    rollback_blocks: int
    corrupt_blocks: int
    log_bytes: int


def read_logs(storage: Storage, paths: Sequence[str], committed: Callable[[str], bool]) -> LogRead:
    """The effective blocks of the log files at ``paths`` (table-relative, in slice order):
    committed, not rolled back, not corrupt. Corrupt blocks are skipped and counted."""
    blocks: list[LogBlock] = []
    log_bytes = 0
    for path in paths:
        data = storage.read_bytes(path)
        log_bytes += len(data)
        blocks += logformat.read_log_blocks(data, storage.uri(path))
    rollbacks = sum(1 for b in blocks if b.block_type is BlockType.COMMAND)
    corrupt = sum(1 for b in blocks if b.is_corrupt)
    effective = logformat.effective_blocks(blocks, committed)
    return LogRead(effective, len(blocks), rollbacks, corrupt, log_bytes)
