"""What a clean node's apply did (its ``adapter_response`` in run_results.json)."""

from __future__ import annotations

from pydantic.json_schema import SkipJsonSchema

from maintainer.services.common.metadata_table import MetadataTableDropped


class ResolvedInstants(MetadataTableDropped):
    """The part of a clean's effects written when the plan's clean was planned on a projection."""

    resolved_instants: dict[str, str] | SkipJsonSchema[None] = None
    """Instant times of the plan's projection (this plan's new compaction) -> the real ones the
    clean recorded in their place; absent when the plan's clean named no projected instant."""


class CleanApplyEffects(ResolvedInstants):
    """The files a clean node deleted: the pending cleans it finished and its new clean."""

    cleans: tuple[str, ...]
    """The clean instants this run completed."""
    files_deleted: int
    """Files deleted."""
    bytes_deleted: int
    """Their planned sizes (a file a pending clean deleted, not in this plan's list, counts 0)."""
    partitions_deleted: tuple[str, ...]
    """Partitions the cleans deleted whole."""
    files_failed: tuple[str, ...]
    """Files that could not be deleted (a node with any fails, so a written result has none)."""
