"""Which services maintainer can plan (and apply), by graph service name.

A service's entry says how to plan one node on an opened table, which partitions it needs
listed (so a table is read once, with only what its planners need), how to build the payload
files apply writes, and where its executor lives (``module:function``, imported when apply
runs). A selected node of a service without an entry is planned ``blocked`` (see
``unsupported_reason``), so nothing silently pretends to work.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from maintainer.hudi.loading import LoadedTable
from maintainer.hudi.timeline import Timeline
from maintainer.plan.model import NodePlan
from maintainer.project.models import TableSpec
from maintainer.project.services import CleanSpec
from maintainer.services import service_apply
from maintainer.services.archive import node as archive_node
from maintainer.services.clean import node as clean_node
from maintainer.services.clean.state import partitions_to_list
from maintainer.services.compaction import node as compaction_node
from maintainer.services.compaction.projection import project_after_compaction
from maintainer.services.rollback import node as rollback_node
from maintainer.services.rollback.projection import project_after_rollback
from maintainer.services.savepoint import node as savepoint_node
from maintainer.services.savepoint.projection import project_after_savepoint_create
from maintainer.storage import Storage

NodePlanner = Callable[[LoadedTable, TableSpec, datetime], NodePlan]
PartitionsNeeded = Callable[[Storage, Timeline, TableSpec, datetime, str], "tuple[str, ...] | None"]
"""(storage, timeline, spec, now, timeline timezone) -> partitions to list (None: all)."""
PayloadBuilder = Callable[[NodePlan, Storage, str], dict[str, bytes]]
"""(node, table storage, plan id) -> payload name -> bytes."""
Projector = Callable[[LoadedTable, NodePlan], LoadedTable]
"""(table, the node planned on it) -> the table as it will be after the node ran."""


@dataclass(frozen=True, slots=True)
class ServiceEntry:
    name: str
    plan: NodePlanner
    partitions: PartitionsNeeded
    payloads: PayloadBuilder
    executor: str | None = None
    """``module:function`` of the apply-side executor (None: planning only)."""
    project: Projector | None = None
    """How the node changes the table, for the nodes after it that plan on the projection."""
    plans_on_projection: bool = False
    """Planned on the table as earlier nodes of the plan will leave it (else: as read)."""


def _clean_partitions(
    storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
) -> tuple[str, ...] | None:
    return partitions_to_list(storage, timeline, spec.clean or CleanSpec(), now, tz)


def _all_partitions(
    storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
) -> tuple[str, ...] | None:
    return None


def _no_partitions(
    storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
) -> tuple[str, ...] | None:
    return ()


def _no_payloads(node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
    return {}


_ADAPTERS = "maintainer.services.service_apply"

SERVICES: dict[str, ServiceEntry] = {
    "rollback": ServiceEntry(
        name="rollback",
        plan=rollback_node.plan_rollback_service,
        partitions=_all_partitions,
        payloads=rollback_node.rollback_payloads,
        executor=f"{_ADAPTERS}:{service_apply.execute_rollback.__name__}",
        project=project_after_rollback,
    ),
    "compaction": ServiceEntry(
        name="compaction",
        plan=compaction_node.plan_compaction_service,
        partitions=compaction_node.compaction_partitions,
        payloads=compaction_node.compaction_payloads,
        executor="maintainer.services.compaction.apply:execute_compaction",
        project=project_after_compaction,
        plans_on_projection=True,
    ),
    "savepoint_create": ServiceEntry(
        name="savepoint_create",
        plan=savepoint_node.plan_savepoint_create_service,
        partitions=_all_partitions,
        payloads=_no_payloads,
        executor=f"{_ADAPTERS}:{service_apply.execute_savepoint_create.__name__}",
        project=project_after_savepoint_create,
    ),
    "clean": ServiceEntry(
        name="clean",
        plan=clean_node.plan_clean_service,
        partitions=_clean_partitions,
        payloads=clean_node.clean_payloads,
        executor="maintainer.services.clean.executor:execute_clean",
        plans_on_projection=True,
    ),
    "archive": ServiceEntry(
        name="archive",
        plan=archive_node.plan_archive_service,
        partitions=_no_partitions,
        payloads=_no_payloads,
        executor=f"{_ADAPTERS}:{service_apply.execute_archive.__name__}",
    ),
    "savepoint_delete": ServiceEntry(
        name="savepoint_delete",
        plan=savepoint_node.plan_savepoint_delete_service,
        partitions=_all_partitions,
        payloads=_no_payloads,
        executor=f"{_ADAPTERS}:{service_apply.execute_savepoint_delete.__name__}",
    ),
}
"""In the graph's execution order inside a table."""

DROPS_METADATA_TABLE = frozenset(SERVICES)
"""Services whose executor drops the metadata table when its node's first action is
``drop_metadata_table`` (every registered one: the first node of a table in execution order
gets that action)."""


def service_entry(service: str) -> ServiceEntry | None:
    return SERVICES.get(service)


def unsupported_reason(service: str) -> str:
    return f"{service} is not supported by this version of maintainer yet"


def resolve_executor(service: str) -> Callable[..., Any] | None:
    """The executor function of a service, imported on first use (None: none registered)."""
    entry = SERVICES.get(service)
    if entry is None or entry.executor is None:
        return None
    module_name, _, function = entry.executor.partition(":")
    executor: Callable[..., Any] = getattr(importlib.import_module(module_name), function)
    return executor
