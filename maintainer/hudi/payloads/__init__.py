"""Hudi timeline payloads: typed models and their JSON / Avro serde.

Decoding (``data`` = the instant file's bytes, ``where`` = the file, for error messages; an empty
file decodes to None, or to empty commit metadata, as Hudi reads it; damaged files raise
:class:`~maintainer.errors.CorruptFileError` naming ``where``):

* :func:`decode_commit_metadata` / :func:`decode_replace_commit_metadata`: commit, deltacommit and
  replacecommit files (inflight or completed); JSON (table version 6) or Avro (8+), by content.
* :func:`decode_cleaner_plan`, :func:`decode_clean_metadata`, :func:`decode_compaction_plan`,
  :func:`decode_rollback_plan`, :func:`decode_rollback_metadata`, :func:`decode_savepoint_metadata`,
  :func:`decode_requested_replace_metadata`: Avro in every table version.

Encoding:

* :func:`encode_avro` (``payload.SCHEMA`` + ``payload.to_record()``): the Avro container Hudi
  expects; deterministic bytes for the same payload (plans are byte-identical across runs).
* :func:`encode_commit_metadata_json`: a v6 commit file byte for byte as Hudi 0.x's Jackson writes it.
* :func:`write_container` / :func:`read_container`: the one-record Avro container for any schema
  of ``schemas/avro/``; :func:`encode_datum`: the bare Avro binary datum (e.g. records of archived
  log blocks); :func:`self_contained_schema` / :func:`schema_text`: the embedded (Java-style
  self-contained: each named type defined once) schema of a Hudi type.

Models are frozen dataclasses with ``from_record(dict)`` / ``to_record()`` (Avro field names), both
given by :class:`~maintainer.hudi.payloads.records.AvroRecord` from each field's metadata:
:class:`CleanerPlan` (:class:`CleanFileInfo`, :class:`ActionInstant`; its files may be a
:class:`FilesOfPaths`, the strings they are made of), :class:`CleanMetadata`
(:class:`CleanPartitionMetadata`), :class:`CompactionPlan` (:class:`CompactionOperation`,
:class:`CompactionStrategy`), :class:`RollbackPlan` (:class:`RollbackRequest`, :class:`InstantInfo`),
:class:`RollbackMetadata` (:class:`RollbackPartitionMetadata`), :class:`SavepointMetadata`
(:class:`SavepointPartitionMetadata`), :class:`CommitMetadata` / :class:`ReplaceCommitMetadata`
(:class:`WriteStat`), :class:`RequestedReplaceMetadata` (:class:`ClusteringPlan`,
:class:`ClusteringGroup`, :class:`SliceInfo`, :class:`ClusteringStrategy`),
:class:`ArchivedMetaEntry`, :class:`LSMTimelineInstant`.
"""

from maintainer.hudi.payloads.archive import ArchivedMetaEntry, LSMTimelineInstant
from maintainer.hudi.payloads.clean import (
    CLEAN_PLAN_VERSION,
    CleanerPlan,
    CleanFileInfo,
    CleanMetadata,
    CleanPartitionMetadata,
    FilesOfPaths,
)
from maintainer.hudi.payloads.clustering import (
    ClusteringGroup,
    ClusteringPlan,
    ClusteringStrategy,
    RequestedReplaceMetadata,
    SliceInfo,
)
from maintainer.hudi.payloads.commit import CommitMetadata, ReplaceCommitMetadata
from maintainer.hudi.payloads.common import ActionInstant, InstantInfo
from maintainer.hudi.payloads.compaction import (
    COMPACTION_PLAN_VERSION,
    CompactionOperation,
    CompactionPlan,
    CompactionStrategy,
)
from maintainer.hudi.payloads.container import encode_datum, read_container, write_container
from maintainer.hudi.payloads.decode import (
    decode_clean_metadata,
    decode_cleaner_plan,
    decode_commit_metadata,
    decode_compaction_plan,
    decode_replace_commit_metadata,
    decode_requested_replace_metadata,
    decode_rollback_metadata,
    decode_rollback_plan,
    decode_savepoint_metadata,
    encode_avro,
    encode_commit_metadata_json,
)
from maintainer.hudi.payloads.rollback import (
    RollbackMetadata,
    RollbackPartitionMetadata,
    RollbackPlan,
    RollbackRequest,
)
from maintainer.hudi.payloads.savepoint import SavepointMetadata, SavepointPartitionMetadata
from maintainer.hudi.payloads.schemas import schema_text, self_contained_schema
from maintainer.hudi.payloads.write_stat import WriteStat

__all__ = [
    "CLEAN_PLAN_VERSION",
    "COMPACTION_PLAN_VERSION",
    "ActionInstant",
    "ArchivedMetaEntry",
    "CleanFileInfo",
    "CleanMetadata",
    "CleanPartitionMetadata",
    "CleanerPlan",
    "ClusteringGroup",
    "ClusteringPlan",
    "ClusteringStrategy",
    "CommitMetadata",
    "CompactionOperation",
    "CompactionPlan",
    "CompactionStrategy",
    "FilesOfPaths",
    "InstantInfo",
    "LSMTimelineInstant",
    "ReplaceCommitMetadata",
    "RequestedReplaceMetadata",
    "RollbackMetadata",
    "RollbackPartitionMetadata",
    "RollbackPlan",
    "RollbackRequest",
    "SavepointMetadata",
    "SavepointPartitionMetadata",
    "SliceInfo",
    "WriteStat",
    "decode_clean_metadata",
    "decode_cleaner_plan",
    "decode_commit_metadata",
    "decode_compaction_plan",
    "decode_replace_commit_metadata",
    "decode_requested_replace_metadata",
    "decode_rollback_metadata",
    "decode_rollback_plan",
    "decode_savepoint_metadata",
    "encode_avro",
    "encode_commit_metadata_json",
    "encode_datum",
    "read_container",
    "schema_text",
    "self_contained_schema",
    "write_container",
]
