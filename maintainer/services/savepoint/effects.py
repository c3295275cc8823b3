"""What a savepoint node's apply did (its ``adapter_response`` in run_results.json)."""

from __future__ import annotations

from maintainer.services.common.metadata_table import MetadataTableDropped


class SavepointCreateApplyEffects(MetadataTableDropped):
    """The savepoints a savepoint_create node made."""

    savepoints_created: tuple[str, ...]
    """The instant times savepointed."""


class SavepointDeleteApplyEffects(MetadataTableDropped):
    """The savepoints a savepoint_delete node removed."""

    savepoints_deleted: tuple[str, ...]
    """The instant times whose savepoints were deleted."""
    removed_instant_files: tuple[str, ...]
    """The savepoint instant files removed from the timeline."""
