"""What a clustering node's apply did (its ``adapter_response`` in run_results.json)."""

from __future__ import annotations

from maintainer.services.common.metadata_table import MetadataTableDropped


class ClusteringApplyEffects(MetadataTableDropped):
    """The file groups a clustering node rewrote: pending clusterings it executed and its new
    clustering."""

    clusterings: tuple[str, ...]
    """The clustering instants this run completed (their completed action is ``replacecommit``)."""
    groups_clustered: int
    """Clustering groups executed."""
    file_groups_replaced: int
    """Input file groups replaced (hidden to readers now; the clean deletes their files later)."""
    files_written: tuple[str, ...]
    """The new base files (table-relative)."""
    bytes_written: int
    """Their sizes."""
    rolled_back_files: tuple[str, ...]
    """Partial files of an earlier failed attempt deleted by its rollback first."""
    rollbacks: tuple[str, ...]
    """The rollback instants of those earlier failed attempts."""
