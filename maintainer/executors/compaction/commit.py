"""The completed compaction instant: a ``commit`` with ``compacted=true``, operation type
``COMPACT``, one write stat per new base file, and in ``extraMetadata`` the table schema then
every entry of the plan's ``extraMetadata`` (Hudi's ``CompactHelpers.createCompactionMetadata``;
our plans carry the plan id there) (Jackson JSON on table version 6, Avro
``HoodieCommitMetadata`` on 8+)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.payloads import CommitMetadata, WriteStat

COMPACT_OPERATION = "COMPACT"


def compaction_commit_metadata(
    stats: Iterable[WriteStat], avro_schema: str, plan_extra: Mapping[str, str] | None
) -> CommitMetadata:
    by_partition: dict[str, list[WriteStat]] = {}
    for stat in stats:
        by_partition.setdefault(stat.partition_path or "", []).append(stat)
    extra = {"schema": avro_schema, **(plan_extra or {})}
    return CommitMetadata(
        partition_to_write_stats={p: tuple(s) for p, s in sorted(by_partition.items())},
        compacted=True,
        extra_metadata=extra,
        operation_type=COMPACT_OPERATION,
    )


def encode_commit(metadata: CommitMetadata, config: TableConfig) -> bytes:
    """The bytes of the completed commit file for this table's timeline layout."""
    if config.timeline_layout.commit_metadata_is_avro:
        return payloads.encode_avro(metadata)
    return payloads.encode_commit_metadata_json(metadata)
