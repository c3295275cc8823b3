"""The completed clustering instant: a ``replacecommit`` with operation type ``CLUSTER``
(Hudi's ``CommitUtils.buildMetadata``): one write stat per new base file, every input file
group as replaced (``partitionToReplaceFileIds``), and in ``extraMetadata`` only the table
schema without meta fields. Jackson JSON on table version 6, Avro
``HoodieReplaceCommitMetadata`` (``version`` null, as Hudi 1.x writes it) on 8+."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.payloads import ReplaceCommitMetadata, WriteStat

CLUSTER_OPERATION = "CLUSTER"


def clustering_commit_metadata(
    stats: Iterable[WriteStat], replaced: Mapping[str, Sequence[str]], avro_schema: str
) -> ReplaceCommitMetadata:
    """``replaced``: partition -> the file ids of the plan's input slices."""
    by_partition: dict[str, list[WriteStat]] = {}
    for stat in stats:
        by_partition.setdefault(stat.partition_path or "", []).append(stat)
    outputs = {stat.file_id for group in by_partition.values() for stat in group}
    replace_ids = {p: tuple(i for i in ids if i not in outputs) for p, ids in replaced.items() if ids}
    return ReplaceCommitMetadata(
        partition_to_write_stats={p: tuple(s) for p, s in by_partition.items()},
        compacted=False,
        extra_metadata={"schema": avro_schema},
        operation_type=CLUSTER_OPERATION,
        partition_to_replace_file_ids=replace_ids,
    )


def encode_replace_commit(metadata: ReplaceCommitMetadata, config: TableConfig) -> bytes:
    """The bytes of the completed replacecommit file for this table's timeline layout."""
    if config.timeline_layout.commit_metadata_is_avro:
        return payloads.encode_avro(replace(metadata, version=None))
    return payloads.encode_commit_metadata_json(metadata)
