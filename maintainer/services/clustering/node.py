"""A clustering node of the plan: the planner's result as actions (one per group of small file
slices, with its inputs, metrics, output file groups and reason; or one per pending clustering
to execute), the effect (what a pending clustering means to the table's writers, the partition
rule), and the ``.clustering.requested`` payload apply writes (``.replacecommit.requested`` on
table version 6).

The clustering instant is not in the plan (it is a wall-clock value): apply takes a fresh one
and re-derives the groups at it, keeping only the approved groups whose slices are all still as
approved."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from maintainer.artifact.model import (
    Action,
    ClusterGroup,
    ClusteringEffect,
    ExecutePendingClustering,
    NodePlan,
    NodeStatus,
)
from maintainer.hudi.payloads import RequestedReplaceMetadata
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.services.clustering.inputs import read_clustering_inputs
from maintainer.services.clustering.model import ClusteringPlanResult, PlanStatus
from maintainer.services.clustering.payload import (
    MISSING_PARTITIONS_SINCE_VERSION,
    encode,
    requested_replace_metadata,
)
from maintainer.services.clustering.planner import plan_clustering
from maintainer.services.clustering.settings import ClusteringSpec
from maintainer.services.common.checks import effect_of
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.storage import Storage

SERVICE = "clustering"
_STATUS = {
    PlanStatus.SCHEDULE: NodeStatus.CHANGES,
    PlanStatus.EXECUTE_PENDING: NodeStatus.CHANGES,
    PlanStatus.NO_OP: NodeStatus.NO_OP,
    PlanStatus.BLOCKED: NodeStatus.BLOCKED,
}
PENDING_REASON = "the clustering is pending in the table: it is executed first, as Hudi does"


def payload_name(table: str) -> str:
    return f"{table}.{SERVICE}.requested"


def settings_of(spec: TableSpec) -> ClusteringSpec:
    return spec.settings_of(ClusteringSpec) or ClusteringSpec()


def plan_clustering_result(table: TableState, spec: TableSpec, now: datetime) -> ClusteringPlanResult:
    """The pure planner on an opened table with the manifest's settings."""
    settings = settings_of(spec)
    return plan_clustering(read_clustering_inputs(table, settings, now), settings, now)


def approved_groups(node: NodePlan) -> list[ClusterGroup]:
    """The groups the node clusters, in plan order."""
    return node.actions_of(ClusterGroup)


def _actions(result: ClusteringPlanResult) -> list[Action]:
    pending: list[Action] = [
        ExecutePendingClustering(target=p.instant_time, reason=PENDING_REASON, sha256=p.sha256)
        for p in result.pending
    ]
    return [*pending, *result.groups]


def _left_out_reasons(result: ClusteringPlanResult) -> list[str]:
    shown = [f"{o.partition or '(table root)'}/{o.file_id}: {o.reason}" for o in result.left_out[:5]]
    more = len(result.left_out) - len(shown)
    return [f"left out: {line}" for line in shown] + ([f"left out: {more} more"] if more > 0 else [])


def node_from_result(table_name: str, result: ClusteringPlanResult) -> NodePlan:
    reasons = list(result.reasons)
    if result.groups:
        reasons.append(result.effect().writers)
    reasons += _left_out_reasons(result)
    return NodePlan(
        table=table_name,
        service=SERVICE,
        status=_STATUS[result.status],
        reasons=tuple(reasons),
        actions=tuple(_actions(result)),
        effect=result.effect(),
        payloads=(payload_name(table_name),) if result.groups else (),
    )


def plan_clustering_node(table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
    """The clustering node of one table (the registry's planner); planned on a projection (after
    this plan's rollbacks and compaction), its reasons say so first."""
    node = node_from_result(spec.name, plan_clustering_result(table, spec, now))
    if table.projection is None or node.status is NodeStatus.NO_OP:
        return node
    return replace(node, reasons=(table.projection.description, *node.reasons))


def requested_metadata(
    groups: Sequence[ClusterGroup], effect: ClusteringEffect, storage: Storage, plan_id: str
) -> RequestedReplaceMetadata:
    """The requested payload of ``groups`` with the node's sort columns, layout and missing
    partitions, carrying the plan id (in its ``extraMetadata``, which Hudi fills from the
    scheduling call's and never reads back)."""
    strategy = ClusteringSpec(sort_columns=effect.sort_columns, layout=effect.layout)
    missing = effect.missing_schedule_partitions
    version = MISSING_PARTITIONS_SINCE_VERSION if missing is not None else 6
    built = requested_replace_metadata(groups, strategy, storage.uri(""), version, missing or ())
    return replace(built, extra_metadata={PLAN_ID_KEY: plan_id})


def built_requested(node: NodePlan, storage: Storage, plan_id: str) -> RequestedReplaceMetadata:
    return requested_metadata(approved_groups(node), effect_of(node, ClusteringEffect), storage, plan_id)


def clustering_payloads(node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
    """The payload of a clustering node: the requested file apply writes."""
    if not node.payloads:
        return {}
    data = encode(built_requested(node, storage, plan_id))
    return dict.fromkeys(node.payloads, data)


def requested_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pending_hashes(node: NodePlan) -> Mapping[str, str]:
    return {a.target: a.sha256 for a in node.actions_of(ExecutePendingClustering)}
