"""The manifest's ``metadata`` block: its settings with Hudi's names and defaults (HUDI.md §5)."""

from __future__ import annotations

from maintainer.project.settings_types import FrozenModel, PositiveInt


class MetadataSpec(FrozenModel):
    """Keep the metadata table healthy as Hudi's metadata writer does after its writes: clean it,
    compact it and archive its timeline (only tables with ``metadata_table: sync`` and a metadata
    table; the plan leaves the node out for the others). The data table's archival never goes
    past the metadata table's latest compaction, so without this a table only maintainer
    maintains stops archiving."""

    enabled: bool = True
    compact_max_delta_commits: PositiveInt = 10
    """hoodie.metadata.compact.max.delta.commits: compact once this many deltacommits have
    completed since the last compaction. The clean and archival settings are derived from the
    table's own ``clean`` and ``archive`` blocks as Hudi's metadata write config derives them
    (retention 1.2 times the table's, at least 20 commits; keep_min/max_commits + 1)."""
