"""The service contract: what every table service provides, and what its apply gets and returns.

A ``TableService`` is the glue of one service package (its ``service.py``): its declaration
(``declaration.py``, what the catalog derives from),
which partitions its planner needs listed, the pure planner, the payload files apply writes,
the projection of the table after it, the up-front check of an approved node and its apply.
``maintainer.services.registry`` lists them and installs the catalog of their declarations.

Apply gets a ``NodeContext`` (the approved node, its table, spec, payloads, one Spark, a clock,
and the payloads the up-front check of the plan already rebuilt and found equal, as
``BuiltPayload``: the node uses them rather than building them again) and returns a
``NodeOutcome`` (its ``ApplyEffects``, ``Drift``, a summary line). Each service declares the
model of its effects once (``ServiceDeclaration.apply_effects``, in its ``effects.py``): the
runner writes it as the node's ``adapter_response`` and the run results' schema derives from
it. The fault hook the executors call at their safe points (``maybe_fail``) is in
:mod:`maintainer.executors.faults`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self

from pydantic import BaseModel, ConfigDict

from maintainer.artifact.model import NodePlan, SyncMetadataTable, TablePlan
from maintainer.catalog import ServiceDeclaration
from maintainer.clock import Clock, utc_now
from maintainer.hudi.instants.instant import Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.metadata.table import MetadataTable
from maintainer.hudi.payloads.records import AvroRecord
from maintainer.hudi.table.state import TableState
from maintainer.project.models import TableSpec
from maintainer.spark.tasks import SparkRunner
from maintainer.storage import Storage
from maintainer.tasks import IN_PROCESS, TaskRunner

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True, slots=True)
class BuiltPayload:
    """One payload as a service builds it from a node's body: the bytes apply writes, and the
    record they encode where the service has it at hand (None otherwise), so whoever checked
    the bytes passes the record on rather than have it decoded or built again."""

    data: bytes
    record: AvroRecord | None = None


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
    checked_payloads: Mapping[str, BuiltPayload] = field(default_factory=dict)
    """The payloads the up-front check of the plan (``runner.plan_checks``) rebuilt from the
    node's body and found byte-equal to ``payloads``, by name: the node need not build them
    again. A payload not here (a node run without that check) the node rebuilds and compares
    itself. Only the payloads are passed on: the node still re-derives its actions from the
    table as it is when it runs."""

    def storage(self) -> Storage:
        return Storage(self.table.path, self.storage_options)

    def task_runner(self) -> TaskRunner:
        """Where the node's tasks run: on Spark's executors, or in process without Spark."""
        return SparkRunner(self.spark) if self.spark is not None else IN_PROCESS


@dataclass(frozen=True, slots=True)
class Prepared:
    """What a service's planner needs listed, and what it worked out to decide it (passed back
    to its planner, so nothing is computed twice: the clean's retention point and scope)."""

    partitions: tuple[str, ...] | None
    """None: every partition."""
    worked_out: object = None


@dataclass(frozen=True, slots=True)
class Drift:
    """Something the plan approved that apply did not do, and why."""

    __pydantic_config__: ClassVar[ConfigDict] = ConfigDict(extra="forbid")

    path: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "reason": self.reason}


class ApplyEffects(BaseModel):
    """What a node's apply did, as its service declares it (``ServiceDeclaration.apply_effects``):
    run_results.json holds it as the node's ``adapter_response``. A field with a default is
    written only when the apply set it (a part of the node that ran); the others always."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    def to_json(self) -> dict[str, Any]:
        """The effects as run_results.json writes them: the fields set, in declaration order."""
        data: dict[str, Any] = self.model_dump(mode="json", exclude_unset=True)
        return data

    def merged(self, more: ApplyEffects) -> Self:
        """These effects with the fields ``more`` set (a part of the same node, told by these
        effects' model or one it extends: a field they do not have is refused)."""
        fields = {**self.model_dump(exclude_unset=True), **more.model_dump(exclude_unset=True)}
        return type(self).model_validate(fields)


class NoEffects(ApplyEffects):
    """A node that did nothing (no changes; skipped, blocked, failed or cancelled): an empty
    object."""


@dataclass(frozen=True, slots=True)
class NodeOutcome:
    """What a node's apply reports: what it did, what it dropped, and a one-line summary;
    ``skipped`` for a node that had nothing to run (e.g. blocked in the plan)."""

    effects: ApplyEffects = field(default_factory=NoEffects)
    drift: tuple[Drift, ...] = ()
    message: str = ""
    skipped: bool = False
    blocked: bool = False
    """Skipped because something keeps the node from running (its table is left unmaintained)."""


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

    def prepare(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> Prepared:
        """:meth:`partitions`, with what the service worked out to choose them."""
        ...

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        """The node, planned on the table (pure: no writes, no clock of its own)."""
        ...

    def plan_prepared(
        self, table: TableState, spec: TableSpec, now: datetime, worked_out: object
    ) -> NodePlan:
        """:meth:`plan`, given what :meth:`prepare` worked out for this table (None: nothing)."""
        ...

    def payloads(self, node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        """Payload name -> the bytes apply writes into the table's timeline."""
        ...

    def built_payloads(self, node: NodePlan, storage: Storage, plan_id: str) -> dict[str, BuiltPayload]:
        """:meth:`payloads` with the record each encodes, where the service has it."""
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
    def lists_storage(self) -> bool:
        """Its planner needs the table listed from storage, not from the metadata table (what
        storage holds that no instant accounts for)."""
        ...

    @property
    def reads_file_sizes(self) -> bool:
        """Its planner reads the sizes of most files it lists (else names, and the sizes and
        times of the few files it acts on, asked of the listing, which stats them then): a table
        whose selected services read none is listed names-only where storage makes sizes cost
        extra (a local disk's ``stat`` per file)."""
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
    lists_storage = False
    reads_file_sizes = True

    def metadata_writes(self, mdt: MetadataTable, node: NodePlan) -> SyncMetadataTable | None:
        return None

    def partitions(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> tuple[str, ...] | None:
        return None

    def prepare(
        self, storage: Storage, timeline: Timeline, spec: TableSpec, now: datetime, tz: str
    ) -> Prepared:
        return Prepared(self.partitions(storage, timeline, spec, now, tz))

    def plan(self, table: TableState, spec: TableSpec, now: datetime) -> NodePlan:
        raise NotImplementedError

    def plan_prepared(
        self, table: TableState, spec: TableSpec, now: datetime, worked_out: object
    ) -> NodePlan:
        return self.plan(table, spec, now)

    def payloads(self, node: NodePlan, storage: Storage, plan_id: str) -> dict[str, bytes]:
        return {}

    def built_payloads(self, node: NodePlan, storage: Storage, plan_id: str) -> dict[str, BuiltPayload]:
        return {name: BuiltPayload(data) for name, data in self.payloads(node, storage, plan_id).items()}

    def not_written_by_plan(
        self, node: NodePlan, storage: Storage, timeline: Timeline, instant: Instant, plan_id: str
    ) -> str | None:
        return None  # writes no instant that carries a plan id

    def project(self, table: TableState, node: NodePlan) -> TableState:
        return table
