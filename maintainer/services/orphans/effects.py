"""What an orphan-files node's apply did (its ``adapter_response`` in run_results.json)."""

from __future__ import annotations

from maintainer.services.common.metadata_table import MetadataTableDropped


class OrphanFilesApplyEffects(MetadataTableDropped):
    """The orphan files an orphan_files node removed."""

    orphan_files_removed: int
    """Files deleted, or moved into the quarantine."""
    orphan_bytes_removed: int
    """Their bytes."""
    quarantine_batch: str | None
    """The quarantine batch's table-relative folder they were moved into (None: deleted)."""
