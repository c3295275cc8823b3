"""The metadata node as the catalog knows it: its action kinds, the review's rules for its
manifest block and its parts of apply's closing line."""

from __future__ import annotations

from maintainer.artifact.model import (
    ArchiveMetadataTable,
    CleanMetadataTable,
    CompactMetadataTable,
    MetadataEffect,
)
from maintainer.catalog import ActionLabel, ChangeKind, ServiceDeclaration, SummaryPart
from maintainer.services.common.change_rules import always, switched_on
from maintainer.services.common.summary_parts import counted
from maintainer.services.metadata.effects import MetadataApplyEffects
from maintainer.services.metadata.settings import MetadataSpec

DECLARATION = ServiceDeclaration(
    "metadata",
    "metadata",
    (
        ActionLabel("clean_metadata_table", "metadata table clean", "metadata table cleans", 14),
        ActionLabel("compact_metadata_table", "metadata table compaction", "metadata table compactions", 15),
        ActionLabel("archive_metadata_table", "metadata table archival", "metadata table archivals", 16),
    ),
    change_rules={
        "enabled": switched_on("metadata"),
        "compact_max_delta_commits": always(ChangeKind.REWRITE, "metadata table compaction cadence"),
    },
    summary=(
        SummaryPart(3, counted("metadata_compactions", int, "metadata table", "compacted")),
        SummaryPart(4, counted("metadata_files_cleaned", int, "metadata table file", "cleaned")),
        SummaryPart(5, counted("metadata_instants_archived", int, "metadata table instant", "archived")),
    ),
    settings=MetadataSpec,
    records=(CleanMetadataTable, CompactMetadataTable, ArchiveMetadataTable),
    effect=MetadataEffect,
    apply_effects=MetadataApplyEffects,
)
