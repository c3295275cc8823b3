"""What a rollback node's apply did (its ``adapter_response`` in run_results.json)."""

from __future__ import annotations

from maintainer.services.common.metadata_table import MetadataTableDropped


class RollbackApplyEffects(MetadataTableDropped):
    """The failed writes a rollback node rolled back, and what that deleted."""

    rollbacks: tuple[str, ...]
    """The rollback instants this run completed."""
    rolled_back: tuple[str, ...]
    """The instant times they rolled back."""
    files_deleted: int
    """Files the rollbacks deleted (their metadata's count)."""
    bytes_deleted: int
    """Bytes of the files they deleted, as listed."""
    removed_instant_files: tuple[str, ...]
    """Timeline files of instants already rolled back that this run removed."""
    rolled_back_before: tuple[str, ...]
    """Approved instant times already rolled back before this run (not drift)."""
