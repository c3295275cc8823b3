"""The compaction service as the catalog knows it: its action kinds, the review's rules for its
manifest block (its settings rewrite files, they delete nothing) and its part of apply's
closing line."""

from __future__ import annotations

from maintainer.artifact.model import CompactionEffect, CompactSlice, ExecutePendingCompaction
from maintainer.catalog import ActionLabel, ChangeKind, ServiceDeclaration, SummaryPart
from maintainer.services.common.summary_parts import counted
from maintainer.services.compaction.effects import CompactionApplyEffects
from maintainer.services.compaction.settings import CompactionSpec, compaction_rules

DECLARATION = ServiceDeclaration(
    "compaction",
    "compaction",
    (
        ActionLabel(
            "execute_pending_compaction", "pending compaction to run", "pending compactions to run", 8
        ),
        ActionLabel("compact_slice", "file slice to compact", "file slices to compact", 9),
    ),
    mor_only=True,
    ledger_actions=("compaction",),
    other_changes=(ChangeKind.REWRITE, "compaction settings"),
    summary=(SummaryPart(1, counted("slices_compacted", int, "file slice", "compacted")),),
    settings=CompactionSpec,
    table_rules=compaction_rules,
    records=(ExecutePendingCompaction, CompactSlice),
    effect=CompactionEffect,
    apply_effects=CompactionApplyEffects,
)
