"""A JSON-ready description of a table's state, for ``maintainer inspect`` and for tests."""

from __future__ import annotations

from typing import Any

from maintainer.hudi.file_groups.filemodel import FileGroup
from maintainer.hudi.file_groups.fsview import FileSystemView
from maintainer.hudi.table.snapshot import TableSnapshot


def _group_json(group: FileGroup, replaced: bool) -> dict[str, Any]:
    return {
        "file_id": group.file_id,
        "replaced": replaced,
        "slices": [
            {
                "base_instant": s.base_instant,
                "base_file": s.base_file.name if s.base_file else None,
                "log_files": [f.name for f in s.log_files],
                "size": s.total_size,
            }
            for s in group.slices
        ],
    }


def describe(snapshot: TableSnapshot, view: FileSystemView) -> dict[str, Any]:
    """One object with the table, its timeline, savepoints, partitions and metadata table."""
    config = snapshot.config
    timeline = snapshot.timeline
    return {
        "table": {
            "name": config.name,
            "type": config.table_type.value,
            "version": config.version,
            "timeline_layout": config.timeline_layout.value,
            "base_path": snapshot.base_uri,
            "record_key_fields": list(config.record_key_fields),
            "ordering_fields": list(config.ordering_fields),
            "partition_fields": list(config.partition_fields),
            "base_file_format": config.base_file_format,
            "merge_mode": config.merge_mode.value,
            "timeline_timezone": config.timeline_timezone,
        },
        "instants": [
            {
                "timestamp": i.timestamp,
                "action": i.action.value,
                "state": i.state.value,
                "completion_time": i.completion_time,
            }
            for i in timeline.instants
        ],
        "pending": [f"{i.timestamp}.{i.action.value}" for i in timeline.pending()],
        "savepoints": [i.timestamp for i in timeline.savepoints()],
        "partitions": [
            {
                "path": partition,
                "file_groups": [
                    _group_json(g, view.is_replaced(g))
                    for g in view.file_groups(partition, include_replaced=True)
                ],
            }
            for partition in view.partitions
        ],
        "uncommitted_files": sorted(f.path for f in view.uncommitted),
        "metadata_table": {
            "exists": snapshot.metadata_table.exists,
            "partitions": list(snapshot.metadata_table.partitions),
            "inflight_partitions": list(snapshot.metadata_table.inflight_partitions),
        },
    }
