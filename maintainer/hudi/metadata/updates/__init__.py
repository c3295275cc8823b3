"""The metadata-table records of maintainer's table services, exactly as Hudi 1.x writes them:
per data-table action at instant T, the records of each metadata partition of the metadata
deltacommit at T (:func:`compaction_update`, :func:`clustering_update`, :func:`clean_update`).
Pure functions: the only
I/O is reading data-file footers through a passed :class:`~maintainer.storage.Storage`.

Records have the shape :func:`maintainer.hudi.metadata.records.decode_value` returns (min/max
values as ``(wrapper record name, {"value": ...})``), keyed; they encode with
:func:`maintainer.hudi.metadata.writer.encode_value` into the bytes Hudi writes."""

from maintainer.hudi.metadata.updates.build import KeyedRecord
from maintainer.hudi.metadata.updates.clean import clean_update
from maintainer.hudi.metadata.updates.commit import (
    MovedKeys,
    TableView,
    UpdateRecords,
    clustering_update,
    commit_update,
    compaction_update,
    needs_partition_stats,
)
from maintainer.hudi.metadata.updates.indexes import TableIndexes, table_indexes
from maintainer.hudi.metadata.updates.partition_stats import partition_stats_prefixes
from maintainer.hudi.metadata.updates.slices import latest_files_after, latest_merged_files

__all__ = [
    "KeyedRecord",
    "MovedKeys",
    "TableIndexes",
    "TableView",
    "UpdateRecords",
    "clean_update",
    "clustering_update",
    "commit_update",
    "compaction_update",
    "latest_files_after",
    "latest_merged_files",
    "needs_partition_stats",
    "partition_stats_prefixes",
    "table_indexes",
]
