"""A JSON-ready description of a metadata table, for ``maintainer inspect``."""

from __future__ import annotations

from typing import Any

from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.check import IndexComparison, MetadataCheck
from maintainer.hudi.metadata.compaction_plan import deltacommits_since_compaction
from maintainer.hudi.metadata.record_index import RecordIndexCheck
from maintainer.hudi.metadata.sync import sync_status
from maintainer.hudi.metadata.table import MetadataTable


def describe_metadata_table(
    mdt: MetadataTable, data_timeline: Timeline, check: MetadataCheck | None = None
) -> dict[str, Any]:
    """Partitions with their file groups, latest compaction, pending instants, sync state and,
    with ``check``, the listing comparison."""
    timeline = mdt.state.snapshot.timeline
    compaction = mdt.latest_compaction
    status = check.sync if check is not None else sync_status(data_timeline, timeline)
    described: dict[str, Any] = {
        "table_version": mdt.state.snapshot.config.version,
        "partitions": [
            {
                "name": partition.name,
                "kind": partition.kind.name.lower(),
                "file_groups": len(mdt.file_groups(partition.name)),
                "files": sum(len(s.files) for g in mdt.file_groups(partition.name) for s in g.slices),
            }
            for partition in mdt.partitions
        ],
        "inflight_partitions": list(mdt.inflight_partitions),
        "latest_compaction": compaction.timestamp if compaction else None,
        "deltacommits_since_compaction": deltacommits_since_compaction(timeline),
        "instants": len(timeline.instants),
        "pending": [f"{i.timestamp}.{i.action.value}" for i in mdt.pending_instants],
        "in_sync": status.in_sync,
        "sync_problems": status.problems(),
    }
    if check is not None:
        described["check"] = {
            "passed": check.passed,
            "files_checked": check.files_checked,
            "differences": [d.describe() for d in check.differences],
            "damaged_files": [f.describe() for f in check.damaged_files],
            "record_index": _record_index(check.record_index),
            "indexes": _indexes(check.compared),
            "problems": check.table_problems(),
        }
    return described


def _indexes(compared: IndexComparison | None) -> dict[str, Any] | None:
    if compared is None:
        return None
    return {
        "footers_read": compared.footers_read,
        "partition_stats_compared": compared.partition_stats,
        "secondary_index_records_compared": compared.secondary_index_records,
        "not_compared": list(compared.not_compared),
    }


def _record_index(check: RecordIndexCheck | None) -> dict[str, Any] | None:
    if check is None:
        return None
    return {
        "keys_checked": check.keys_checked,
        "missing": len(check.missing),
        "misplaced": len(check.misplaced),
        "extra": len(check.extra),
        "skipped": check.skipped,
    }
