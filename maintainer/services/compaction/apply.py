"""Apply one approved compaction node: never more than the plan.

On the table as it is now (re-read under the table lock):
1. the metadata table is dropped first when the plan says so (refused when the table has one
   the plan did not expect);
2. pending compactions the plan named (or one an interrupted apply of this very plan left,
   recognised by the plan id in its requested plan) are executed first, an inflight one rolled
   back before, as Hudi does; any other pending compaction fails the node;
3. the new compaction takes a fresh instant and compacts the approved slices that are still
   exactly as approved (same base file, same log files and sizes, not in another pending
   operation; on table version 6 the scheduling rules hold at the new instant); the others are
   drift, with the reason. The ``.compaction.requested`` written is rebuilt from the approved
   operations kept: byte-identical to the plan's payload when nothing drifted.
"""

from __future__ import annotations

import hashlib

from maintainer.artifact.model import CompactSlice, ExecutePendingCompaction, NodePlan, SyncMetadataTable
from maintainer.errors import ApplyError, PlanError
from maintainer.executors.common.codec import configured_settings
from maintainer.executors.common.metadata_sync import COMPACTION_UPDATES
from maintainer.executors.compaction.executor import CompactionOutcome, run_compaction
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import TableConfig
from maintainer.hudi.instants.instant import Instant, State
from maintainer.hudi.instants.layout import TimelineLayout
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.parquet.basefile import ParquetSettings
from maintainer.hudi.table.state import TableState, open_table
from maintainer.services.base import Drift, NodeContext, NodeOutcome
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.services.common.metadata_table import drop_if_approved, with_dropped
from maintainer.services.compaction.effects import CompactionApplyEffects
from maintainer.services.compaction.inputs import verify_inputs
from maintainer.services.compaction.node import approved_operations, compaction_plan_bytes, settings_of
from maintainer.services.compaction.payload import build_compaction_plan
from maintainer.services.compaction.planner import find_operations, inputs_of, v6_scheduling_conflicts
from maintainer.services.compaction.settings import CompactionSpec
from maintainer.storage import Storage
from maintainer.tasks import TaskRunner


def compaction_plan_id(table: TableState, instant: Instant) -> str | None:
    """The plan id a pending compaction's requested plan carries (None: not ours)."""
    path = table.snapshot.timeline.file_path(instant, State.REQUESTED)
    plan = payloads.decode_compaction_plan(table.storage.read_bytes(path), table.storage.uri(path))
    return (plan.extra_metadata or {}).get(PLAN_ID_KEY) if plan else None


def is_plans_own_compaction(node: NodePlan, plan_id: str, data: bytes, where: str) -> bool:
    """Is ``data`` a compaction plan this node's apply writes: approved slices only, each as
    approved, byte for byte what apply builds for them?"""
    plan = payloads.decode_compaction_plan(data, where)
    by_slice = {(op.partition, op.file_id): op for op in approved_operations(node)}
    named = [(op.partition_path or "", op.file_id or "") for op in (plan.operations or ())] if plan else []
    matched = [by_slice[key] for key in named if key in by_slice]
    return bool(named) and len(matched) == len(named) and compaction_plan_bytes(matched, plan_id) == data


def compaction_not_written_by_plan(
    node: NodePlan, storage: Storage, timeline: Timeline, instant: Instant, plan_id: str
) -> str | None:
    """Why the compaction ``instant`` (carrying the plan id) is not one this node's apply wrote
    (None: its requested plan is)."""
    path = timeline.file_path(instant, State.REQUESTED)
    if is_plans_own_compaction(node, plan_id, storage.read_bytes(path), storage.uri(path)):
        return None
    return "its slices, files or bytes differ from the approved ones"


def _not_reviewed(instant: Instant, where: str, recorded: bool) -> ApplyError:
    return ApplyError(
        f"the pending compaction {instant.timestamp} was changed after the plan was made: "
        "its plan is not the one reviewed"
        if recorded
        else f"the plan does not record what the pending compaction {instant.timestamp} compacts",
        where=where,
        hint="nothing was written: make the plan again and review what it executes",
    )


def _same_slice(current: CompactSlice | None, approved: CompactSlice) -> str | None:
    """None when the slice is still as approved, else why not."""
    if current is None:
        return "the file slice is no longer compactable (gone, replaced, or in another pending operation)"
    if current.base_file != approved.base_file:
        return "the file slice has a new base file since the plan"
    if current.log_files != approved.log_files:
        return "the file slice has new or grown log files since the plan (compacting it needs a new review)"
    return None


class CompactionApply:
    def __init__(self, ctx: NodeContext, runner: TaskRunner | None = None) -> None:
        self.ctx = ctx
        self.runner = runner or ctx.task_runner()
        self.dropped: tuple[str, ...] | None = None
        """The metadata table's partitions, when the node dropped it."""
        self.drift: list[Drift] = []
        self.runs: list[CompactionOutcome] = []

    def open(self) -> TableState:
        """The table as it is now, listing only the partitions of the approved slices (pending
        compactions run from their stored plans, which name their files)."""
        partitions = sorted({op.partition for op in approved_operations(self.ctx.node)})
        return open_table(self.ctx.table.path, self.ctx.storage_options, partitions)

    # -- 1. metadata table ----------------------------------------------------------------------
    def handle_metadata_table(self, table: TableState) -> TableState:
        self.dropped = drop_if_approved(self.ctx, table, "compaction", COMPACTION_UPDATES)
        return self.open() if self.dropped is not None else table

    # -- 2. pending compactions -----------------------------------------------------------------
    def check_pending(self, table: TableState) -> None:
        """Before anything is written: each pending compaction the plan executes is still the
        reviewed bytes, and one carrying this plan's id (an interrupted apply of it, or a
        forgery: the id is no proof) is exactly what apply writes for approved slices."""
        approved = {a.target: a.sha256 for a in self.ctx.node.actions_of(ExecutePendingCompaction)}
        for instant in table.snapshot.timeline.pending_compactions():
            path = table.snapshot.timeline.file_path(instant, State.REQUESTED)
            data = table.storage.read_bytes(path)
            if instant.timestamp in approved:
                if hashlib.sha256(data).hexdigest() != approved[instant.timestamp]:
                    raise _not_reviewed(instant, table.storage.uri(path), bool(approved[instant.timestamp]))
            elif compaction_plan_id(table, instant) == self.ctx.plan_id:
                self.check_own(instant, data, table.storage.uri(path))

    def check_own(self, instant: Instant, data: bytes, where: str) -> None:
        """A pending compaction carrying this plan's id must compact approved slices only, each
        as approved, byte for byte what apply builds for them."""
        if not is_plans_own_compaction(self.ctx.node, self.ctx.plan_id, data, where):
            raise ApplyError(
                f"the pending compaction {instant.timestamp} carries this plan's id but is not what this "
                "plan approved (its slices, files or bytes differ from the approved ones)",
                where=where,
                hint="nothing was written: this plan did not write it; find out who did, roll it back "
                "with Hudi (or remove its .requested and .inflight by hand), then make the plan again",
            )

    def finish_pending(self, table: TableState) -> tuple[TableState, bool]:
        """Execute the pending compactions; True when one was this plan's own (interrupted) one."""
        approved = {a.target for a in self.ctx.node.actions_of(ExecutePendingCompaction)}
        own = False
        pending = table.snapshot.timeline.pending_compactions()
        for instant in pending:
            carries = compaction_plan_id(table, instant)
            if instant.timestamp not in approved and carries != self.ctx.plan_id:
                raise ApplyError(
                    f"compaction {instant.timestamp} is pending in the table and the plan does not "
                    "execute it",
                    where=self.ctx.table.path,
                    hint="it appeared after the plan was made: make the plan again",
                )
            own = own or carries == self.ctx.plan_id
            config = table.snapshot.config
            self.runs.append(
                run_compaction(
                    table.storage,
                    config,
                    instant.timestamp,
                    None,
                    self.runner,
                    parquet=self.parquet(config),
                    sync_metadata=self.syncs_metadata(),
                    clock=self.ctx.clock,
                    size_of=table.snapshot.listed_sizes(),
                )
            )
            approved.discard(instant.timestamp)
        self.drift += [
            Drift(t, "the pending compaction was already executed by someone else") for t in sorted(approved)
        ]
        return (self.open() if pending else table), own

    # -- 3. the new compaction ------------------------------------------------------------------
    def approved(self) -> list[CompactSlice]:
        names = [name for name in self.ctx.node.payloads if name.endswith(".compaction.requested")]
        if not names:
            return []
        operations = approved_operations(self.ctx.node)
        if names[0] in self.ctx.checked_payloads:  # the up-front check of the plan compared it
            return operations
        if self.ctx.payloads.get(names[0]) != compaction_plan_bytes(operations, self.ctx.plan_id):
            raise PlanError(
                f"payload {names[0]} does not match the approved plan body",
                where=str(names[0]),
                hint="plans are applied exactly as reviewed: make the plan again and review it",
            )
        return operations

    def new_compaction(self, table: TableState) -> None:
        operations = self.approved()
        if not operations:
            return
        writer = TimelineWriter(table.storage, table.snapshot.config, self.ctx.clock)
        instant = writer.new_instant_time()
        timeline = table.snapshot.timeline
        conflicts = v6_scheduling_conflicts(timeline, instant) if timeline.layout is TimelineLayout.V1 else []
        if conflicts:
            self.drift += [Drift(op.target, "; ".join(conflicts)) for op in operations]
            return
        found = find_operations(inputs_of(table), settings_of(self.ctx.spec), instant)
        current = {(op.partition, op.file_id): op for op in found.candidates}
        keep = []
        for op in operations:
            why = _same_slice(current.get((op.partition, op.file_id)), op)
            if why is None:
                keep.append(op)
            else:
                self.drift.append(Drift(op.target, why))
        if keep:
            plan = build_compaction_plan(keep, self.ctx.plan_id)
            config = table.snapshot.config
            self.runs.append(
                run_compaction(
                    table.storage,
                    config,
                    instant,
                    plan,
                    self.runner,
                    parquet=self.parquet(config),
                    sync_metadata=self.syncs_metadata(),
                    clock=self.ctx.clock,
                    size_of=table.snapshot.listed_sizes(),
                )
            )

    def parquet(self, config: TableConfig) -> ParquetSettings:
        """Writer settings for slices whose base file codec is not kept
        (:mod:`maintainer.executors.common.codec`)."""
        spec = self.ctx.spec.settings_of(CompactionSpec) or CompactionSpec()
        return configured_settings(config, spec.parquet_compression)

    def syncs_metadata(self) -> bool:
        """``metadata_table: sync``: each compaction's metadata deltacommit is written before it
        completes, and a failed attempt's is rolled back with the attempt."""
        return bool(self.ctx.node.actions_of(SyncMetadataTable))

    # -- the node ----------------------------------------------------------------------------------
    def execute(self) -> NodeOutcome:
        table = self.open()
        self.check_pending(table)  # before the first write
        # before the first write: the files the approved and pending compactions read are intact
        pending = table.snapshot.timeline.pending_compactions()
        verify_inputs(table, approved_operations(self.ctx.node), pending, read_logs=True)
        table = self.handle_metadata_table(table)
        table, own_finished = self.finish_pending(table)
        if not own_finished:
            self.new_compaction(table)
        return self.outcome()

    def outcome(self) -> NodeOutcome:
        stats = [s for run in self.runs for s in run.stats]
        effects = CompactionApplyEffects(
            compactions=tuple(run.instant.timestamp for run in self.runs),
            slices_compacted=len(stats),
            files_written=tuple(sorted(s.path or "" for s in stats)),
            bytes_written=sum(s.file_size_in_bytes or 0 for s in stats),
            rolled_back_files=tuple(sorted(p for run in self.runs for p in run.rolled_back_files)),
            rollbacks=tuple(run.rollback_instant for run in self.runs if run.rollback_instant),
            corrupt_log_blocks_skipped={
                s.path or "": s.total_corrupt_log_block for s in stats if s.total_corrupt_log_block
            },
        )
        effects = with_dropped(effects, self.dropped)
        return NodeOutcome(effects, tuple(self.drift), _summary(effects, self.drift))


def _summary(effects: CompactionApplyEffects, drift: list[Drift]) -> str:
    runs = effects.compactions
    text = (
        f"{effects.slices_compacted} file slice(s) compacted in {len(runs)} compaction(s)"
        if runs
        else "nothing to do"
    )
    rollbacks = effects.rollbacks
    if rollbacks:
        text += (
            f", an earlier failed attempt rolled back first (rollback {', '.join(rollbacks)}, "
            f"{len(effects.rolled_back_files)} partial file(s) deleted)"
        )
    corrupt = effects.corrupt_log_blocks_skipped
    if corrupt:
        text += (
            f", {sum(corrupt.values())} corrupt log block(s) skipped as Hudi does (a crashed append's "
            f"leftovers) in {len(corrupt)} slice(s)"
        )
    return text + (f", {len(drift)} drifted" if drift else "")


def execute_compaction(ctx: NodeContext) -> NodeOutcome:
    """The runner's entry point for compaction nodes."""
    return CompactionApply(ctx).execute()
