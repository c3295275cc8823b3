"""The rollback service as the catalog knows it: its action kinds, the review's rules for its
manifest block and its part of apply's closing line."""

from __future__ import annotations

from collections.abc import Sequence

from maintainer.artifact.model import RollbackAction, RollbackEffect
from maintainer.catalog import ActionLabel, ChangeKind, NodeEffects, ServiceDeclaration, SummaryPart
from maintainer.services.common.change_rules import always, less_is_destructive, switched_on
from maintainer.services.common.summary_parts import counted, files_deleted, of_service
from maintainer.services.rollback.effects import RollbackApplyEffects
from maintainer.services.rollback.settings import RollbackSpec

_rollbacks = counted("rollbacks", len, "rollback", "")


def _told(nodes: Sequence[NodeEffects]) -> str | None:
    """``1 rollback (8 files deleted, 12.0 KiB)``: every node's rollbacks (a compaction's too),
    with the files the rollback nodes deleted, as the plan's summary tells them."""
    rollbacks = _rollbacks(nodes)
    deleted = files_deleted(of_service(nodes, "rollback"), "{files} deleted, {size}")
    return f"{rollbacks} ({deleted})" if rollbacks and deleted else rollbacks


DECLARATION = ServiceDeclaration(
    "rollback",
    "rollback",
    (
        ActionLabel("rollback", "failed write to roll back", "failed writes to roll back", 4),
        ActionLabel(
            "finish_pending_rollback", "pending rollback to finish", "pending rollbacks to finish", 6
        ),
        ActionLabel(
            "remove_rolled_back_instant", "rolled-back instant to remove", "rolled-back instants to remove", 7
        ),
    ),
    change_rules={
        "enabled": switched_on("rollback"),
        "min_age": less_is_destructive("time before a failed write is rolled back"),
        "failed_writes_policy": always(ChangeKind.DESTRUCTIVE, "failed writes handled otherwise"),
        "heartbeat_interval_ms": less_is_destructive("heartbeat time before a writer counts as dead"),
        "heartbeat_tolerable_misses": less_is_destructive("heartbeat misses tolerated"),
    },
    summary=(SummaryPart(2, _told),),
    settings=RollbackSpec,
    records=(RollbackAction,),
    effect=RollbackEffect,
    apply_effects=RollbackApplyEffects,
)
