"""The clustering service as the catalog knows it: its action kinds, the review's rules for its
manifest block (its settings rewrite files and delete none: the replaced file groups stay until
the clean removes them) and its part of apply's closing line."""

from __future__ import annotations

from typing import Any

from maintainer.artifact.model import ClusterGroup, ClusteringEffect, ExecutePendingClustering
from maintainer.catalog import ActionLabel, ChangeKind, ServiceDeclaration, SummaryPart
from maintainer.services.clustering.effects import ClusteringApplyEffects
from maintainer.services.clustering.settings import ClusteringSpec, clustering_rules
from maintainer.services.common.summary_parts import counted


def _switched(before: Any, after: Any) -> tuple[ChangeKind, str]:
    """Switching clustering on rewrites files (it deletes none: the clean does, later)."""
    if after is True:
        return ChangeKind.REWRITE, "clustering switched on (small files rewritten into new file groups)"
    return ChangeKind.METADATA, "clustering switched off"


DECLARATION = ServiceDeclaration(
    "clustering",
    "clustering",
    (
        ActionLabel(
            "execute_pending_clustering", "pending clustering to run", "pending clusterings to run", 18
        ),
        ActionLabel("cluster_group", "clustering group", "clustering groups", 19),
    ),
    change_rules={"enabled": _switched},
    other_changes=(ChangeKind.REWRITE, "clustering settings"),
    summary=(
        SummaryPart(10, counted("file_groups_replaced", int, "file group", "clustered into new files")),
    ),
    settings=ClusteringSpec,
    table_rules=clustering_rules,
    records=(ExecutePendingClustering, ClusterGroup),
    effect=ClusteringEffect,
    apply_effects=ClusteringApplyEffects,
)
