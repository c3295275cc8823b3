"""The service contract: what every table service provides, and what its apply gets and returns.

A ``TableService`` is the glue of one service package (its ``service.py``): its declaration
(``declaration.py``, what the catalog derives from),
which partitions its planner needs listed, the pure planner, the payload files apply writes,
the projection of the table after it, the up-front check of an approved node and its apply.
``maintainer.services.registry`` lists them and installs the catalog of their declarations.

Apply gets a ``NodeContext`` (the approved node, its table, spec, payloads, one Spark, a clock)
and returns a ``NodeOutcome`` (effects, ``Drift``, a summary line). ``maybe_fail`` is the
fault hook tests arm to crash an apply at a named point; its points are the executors' safe
points, where a stop asked for by a second Ctrl-C (:func:`request_stop`) ends the node too.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import ConfigDict

from maintainer.artifact.model import NodePlan, SyncMetadataTable, TablePlan
from maintainer.catalog import ServiceDeclaration
from maintainer.clock import Clock, utc_now
from maintainer.errors import ApplyError
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.loading import TableState
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.project.models import TableSpec
from maintainer.spark.tasks import SparkRunner
from maintainer.storage import Storage
from maintainer.tasks import IN_PROCESS, TaskRunner

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class NodeContext:
    """What a service's apply gets: the approved node, its table, the project's spec, one Spark."""

    plan_id: str
    table: TablePlan
    node: NodePlan
    spec: TableSpec
    payloads: Mapping[str, bytes]
    """The plan directory's payloads (verified against plan.json), by name."""
    spark: SparkSession | None
    """None when the node runs without Spark (tests, in-process runners)."""
    storage_options: Mapping[str, Any] = field(default_factory=dict)
    clock: Clock = utc_now

    def storage(self) -> Storage:
        return Storage(self.table.path, self.storage_options)

    def task_runner(self) -> TaskRunner:
        """Where the node's tasks run: on Spark's executors, or in process without Spark."""
        return SparkRunner(self.spark) if self.spark is not None else IN_PROCESS


@dataclass(frozen=True, slots=True)
class Drift:
    """Something the plan approved that apply did not do, and why."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    path: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class NodeOutcome:
    """What a node's apply reports: what it did, what it dropped, and a one-line summary;
    ``skipped`` for a node that had nothing to run (e.g. blocked in the plan)."""

    effects: Mapping[str, Any] = field(default_factory=dict)
    drift: tuple[Drift, ...] = ()
    message: str = ""
    skipped: bool = False
    blocked: bool = False
    """Skipped because something keeps the node from running (its table is left unmaintained)."""


# -- the fault hook ------------------------------------------------------------------------------

FAULT_ENV = "MAINTAINER_FAULT_INJECT"
"""``<service>:<point>`` (several separated by commas), e.g. ``clean:after_inflight``."""


class InjectedFault(ApplyError):
    """The failure a test asked for (never raised unless the environment variable is set)."""


def _armed_points() -> set[str]:
    value = os.environ.get(FAULT_ENV, "")
    return {part.strip() for part in value.split(",") if part.strip()}


Fault = Callable[[str], None]
"""A fault hook an executor calls at its named points (``maybe_fail`` bound to a service in
apply; ``no_fault`` elsewhere)."""


def no_fault(point: str) -> None:
    return None


class Stopped(ApplyError):
    """A node ended at a safe point because the apply was told to stop now (a second Ctrl-C)."""


_STOP = threading.Event()


def request_stop() -> None:
    """Every running node ends at its next safe point (a ``maybe_fail`` point): what it wrote
    stays requested or inflight on the timeline, as after a crash there, which the next apply
    of the plan finishes or rolls back."""
    _STOP.set()


def clear_stop() -> None:
    _STOP.clear()


def stop_requested() -> bool:
    return _STOP.is_set()


def maybe_fail(service: str, point: str) -> None:
    """Raise :class:`Stopped` when the apply was told to stop now, and :class:`InjectedFault`
    when ``<service>:<point>`` is armed in ``FAULT_ENV``, as a crash at that point would."""
    name = f"{service}:{point}"
    if _STOP.is_set():
        raise Stopped(
            f"stopped at a safe point ({name}) as asked",
            hint="apply the same plan again: it resumes where this one stopped",
        )
    if name in _armed_points():
        raise InjectedFault(
            f"fault injected at {name}",
            hint=f"unset {FAULT_ENV} to run normally",
        )


# -- the contract --------------------------------------------------------------------------------

Check = tuple[str, object, "str | None"]
"""(where in the node, the value, why it is wrong or None)."""


class TableService(Protocol):
    """One table service (see the module docstring)."""

    @property
    def declaration(self) -> ServiceDeclaration: ...

    @property
    def plans_on_projection(self) -> bool:
        """Planned on the table as earlier nodes of the plan will leave it (else: as read)."""
        ...

    def partitions(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> tuple[str, ...] | None:
        """The partitions its planner needs listed (None: all)."""
        ...

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        """The node, planned on the table (pure: no writes, no clock of its own)."""
        ...

    def payloads(self, node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        """Payload name -> the bytes apply writes into the table's timeline."""
        ...

    def project(self, table: TableState, node: NodePlan) -> TableState:
        """The table as it will be after the node ran (the table itself when it does not change
        what later nodes plan on)."""
        ...

    def validate(self, node: NodePlan, table_uri: str) -> Iterator[Check]:
        """Every value of an approved node checked before any node runs."""
        ...

    def not_written_by_plan(
        self, node: NodePlan, storage: Storage, timeline: Timeline, instant: Instant, plan_id: str
    ) -> str | None:
        """Why a completed ``instant`` of the table carrying the plan id is not one this node's
        apply wrote (None: it could be). The plan id alone proves nothing."""
        ...

    @property
    def syncs_metadata_table(self) -> bool:
        """Its apply keeps a metadata table in sync (``metadata_table: sync``); else its nodes
        are blocked on tables that have one, unless the policy drops it."""
        ...

    def metadata_writes(self, mdt: MetadataTable, node: NodePlan) -> SyncMetadataTable | None:
        """What the node's apply writes into the metadata table (None: nothing)."""
        ...

    def apply(self, ctx: NodeContext) -> NodeOutcome:
        """Carry out the approved node (under the runner's table lock)."""
        ...


class ServiceDefaults:
    """What a service that does not say otherwise does: its planner needs every partition
    listed, it writes no payload files, later nodes plan on the table as read and see it
    unchanged by this node."""

    plans_on_projection = False
    syncs_metadata_table = False

    def metadata_writes(self, mdt: MetadataTable, node: NodePlan) -> SyncMetadataTable | None:
        return None

    def partitions(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> tuple[str, ...] | None:
        return None

    def payloads(self, node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        return {}

    def not_written_by_plan(
        self, node: NodePlan, storage: Storage, timeline: Timeline, instant: Instant, plan_id: str
    ) -> str | None:
        return None  # writes no instant that carries a plan id

    def project(self, table: TableState, node: NodePlan) -> TableState:
        return table
