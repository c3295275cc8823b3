"""The metadata node's records: the metadata table's own upkeep (clean, compaction, archival),
each an action on ``.hoodie/metadata`` that apply re-derives from the metadata table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from maintainer.artifact.model.records import PlanRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class CleanMetadataTable(PlanRecord):
    """Delete the metadata table's file slices its retention no longer keeps."""

    kind: Literal["clean_metadata_table"] = "clean_metadata_table"
    target: str
    reason: str
    files: tuple[str, ...]
    """Paths relative to the metadata table."""
    pending: tuple[str, ...]
    """The metadata table's pending cleans, finished first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactMetadataTable(PlanRecord):
    """Compact every file group of the metadata table with log files (or finish a pending
    compaction): one new base HFile per file group."""

    kind: Literal["compact_metadata_table"] = "compact_metadata_table"
    target: str
    reason: str
    instant: str
    """The compaction's instant as planned (a new one is taken at apply; a pending one is kept)."""
    pending: bool
    """It finishes a compaction the metadata table already has."""
    file_groups: int
    log_files: int
    log_bytes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ArchiveMetadataTable(PlanRecord):
    """Move the metadata table's oldest instants to its archived timeline."""

    kind: Literal["archive_metadata_table"] = "archive_metadata_table"
    target: str
    reason: str
    instants: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MetadataEffect(PlanRecord):
    kind: Literal["metadata"] = "metadata"
    deltacommits_since_compaction: int
    max_delta_commits: int
    last_compaction: str
    """"" when the metadata table was never compacted."""
    active_instants: int
    log_files: int
    """Log files in the metadata table's latest file slices."""
