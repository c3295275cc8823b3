"""The rollback service's glue: its catalog entry, planner, payloads, projection, check, apply."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from maintainer.catalog import BY_NAME
from maintainer.hudi.loading import TableState
from maintainer.plan.model import NodePlan
from maintainer.project.models import TableSpec
from maintainer.services.base import Check, NodeContext, NodeOutcome, ServiceDefaults
from maintainer.services.rollback import node
from maintainer.services.rollback.apply import execute_rollback
from maintainer.services.rollback.projection import project_after_rollback
from maintainer.services.rollback.validate import validate_rollback
from maintainer.storage import Storage


class RollbackService(ServiceDefaults):
    descriptor = BY_NAME["rollback"]

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        return node.plan_rollback_service(table, spec, now)

    def payloads(self, plan: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        return node.rollback_payloads(plan, storage, plan_id)

    def project(self, table: TableState, plan: NodePlan) -> TableState:
        return project_after_rollback(table, plan)

    def validate(self, plan: NodePlan, table_uri: str) -> Iterator[Check]:
        return validate_rollback(plan, table_uri)

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        return execute_rollback(ctx)
