"""The clean service as the catalog knows it: its action kinds, the review's rules for its
manifest block and its part of apply's closing line."""

from __future__ import annotations

from collections.abc import Sequence

from maintainer.artifact.model import CleanEffect, DeleteFile, DeletePartition, FinishPendingClean
from maintainer.catalog import ActionLabel, ChangeKind, NodeEffects, ServiceDeclaration, SummaryPart
from maintainer.services.clean.effects import CleanApplyEffects
from maintainer.services.clean.settings import POLICY_BY_RETAINED_KEY, CleanSpec
from maintainer.services.common.change_rules import always, less_is_destructive, switched_on
from maintainer.services.common.summary_parts import files_deleted, of_service


def _told(nodes: Sequence[NodeEffects]) -> str | None:
    """``1,204 files deleted (3.1 GiB)`` by the clean nodes."""
    return files_deleted(of_service(nodes, "clean"))


DECLARATION = ServiceDeclaration(
    "clean",
    "clean",
    (
        ActionLabel("delete_file", "file to delete", "files to delete", 0),
        ActionLabel("delete_partition", "partition to delete", "partitions to delete", 1),
        ActionLabel("finish_pending_clean", "pending clean to finish", "pending cleans to finish", 2),
    ),
    ledger_actions=("clean",),
    change_rules={
        "enabled": switched_on("clean"),
        "policy": always(ChangeKind.DESTRUCTIVE, "another retention policy: may delete other files"),
        "commits_retained": less_is_destructive("retention (commits)"),
        "file_versions_retained": less_is_destructive("retention (file versions)"),
        "hours_retained": less_is_destructive("retention (hours)"),
    },
    summary=(SummaryPart(0, _told),),
    settings=CleanSpec,
    inferred={"policy": tuple(POLICY_BY_RETAINED_KEY)},
    records=(FinishPendingClean, DeleteFile, DeletePartition),
    effect=CleanEffect,
    apply_effects=CleanApplyEffects,
)
