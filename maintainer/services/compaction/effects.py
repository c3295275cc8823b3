"""What a compaction node's apply did (its ``adapter_response`` in run_results.json)."""

from __future__ import annotations

from maintainer.services.common.metadata_table import MetadataTableDropped


class CompactionApplyEffects(MetadataTableDropped):
    """The file slices a compaction node compacted: pending compactions it executed and its
    new compaction."""

    compactions: tuple[str, ...]
    """The compaction instants this run completed."""
    slices_compacted: int
    """File slices compacted."""
    files_written: tuple[str, ...]
    """The base files written (table-relative)."""
    bytes_written: int
    """Their sizes."""
    rolled_back_files: tuple[str, ...]
    """Partial files of an earlier failed attempt deleted by its rollback first."""
    rollbacks: tuple[str, ...]
    """The rollback instants of those earlier failed attempts."""
    corrupt_log_blocks_skipped: dict[str, int]
    """Base file written -> corrupt log blocks skipped as Hudi does (a crashed append's leftovers)."""
