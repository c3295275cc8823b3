"""What an archive node's apply did (its ``adapter_response`` in run_results.json)."""

from __future__ import annotations

from maintainer.services.common.metadata_table import MetadataTableDropped


class ArchiveApplyEffects(MetadataTableDropped):
    """The instants an archive node moved to the archived timeline."""

    archive_file: str | None
    """The archive file written (table-relative; null: nothing was archived)."""
    records_written: int
    """Records written into the archive file."""
    instants_archived: tuple[str, ...]
    """Approved instant times this run archived."""
    already_archived: tuple[str, ...]
    """Approved instant times already off the active timeline before this run (an interrupted
    apply of this plan archived them): not counted again."""
    deleted_files: tuple[str, ...]
    """The active timeline's instant files deleted once archived."""
