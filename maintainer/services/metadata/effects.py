"""What a metadata node's apply did to the metadata table (its ``adapter_response`` in
run_results.json): each part is there only when the approved part ran (in the node's order:
clean, compaction, archival)."""

from __future__ import annotations

from pydantic.json_schema import SkipJsonSchema

from maintainer.services.base import ApplyEffects


class MetadataApplyEffects(ApplyEffects):
    """The metadata table's upkeep a metadata node did."""

    metadata_files_cleaned: int | SkipJsonSchema[None] = None
    """Files the metadata table's clean deleted."""
    metadata_cleans: tuple[str, ...] | SkipJsonSchema[None] = None
    """The metadata table's clean instants completed."""
    metadata_compaction: str | SkipJsonSchema[None] = None
    """The metadata table's compaction instant."""
    metadata_compactions: int | SkipJsonSchema[None] = None
    """Compactions of the metadata table (1 when it was compacted)."""
    metadata_file_groups_compacted: int | SkipJsonSchema[None] = None
    """File groups of the metadata table compacted."""
    metadata_instants_archived: int | SkipJsonSchema[None] = None
    """Instants of the metadata table archived."""
    metadata_archive_file: str | None = None
    """The metadata table's archive file written (null: none was)."""
