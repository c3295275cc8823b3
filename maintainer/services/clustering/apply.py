"""Apply one approved clustering node: never more than the plan.

On the table as it is now (re-read under the table lock):
1. before the first write, every pending clustering is one the plan executes and still the
   reviewed bytes, or one an interrupted apply of this very plan left (recognised by the plan id
   in its requested file, and then exactly what apply writes for approved groups); any other
   fails the node;
2. the metadata table is dropped first when the plan says so;
3. pending clusterings are executed first (an inflight one rolled back before), as Hudi does;
4. the new clustering takes a fresh instant and rewrites the approved groups whose slices are
   all still exactly as approved (the latest slice of their file group, same base and log files
   and sizes, in no pending compaction or clustering, still under the small-file limit); the
   other groups are drift, with the reason. The requested file written is rebuilt from the
   approved groups kept: byte-identical to the plan's payload when nothing drifted.
"""

from __future__ import annotations

from collections.abc import Sequence

from maintainer.artifact.model import (
    ClusterGroup,
    ClusteringEffect,
    NodePlan,
    SyncMetadataTable,
)
from maintainer.errors import ApplyError, PlanError
from maintainer.executors.clustering.executor import ClusteringOutcome, run_clustering
from maintainer.executors.common.metadata_sync import COMPACTION_UPDATES
from maintainer.hudi import payloads
from maintainer.hudi.config.properties import MergeMode
from maintainer.hudi.instants.instant import Instant, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.metadata.updates.commit import RECORD_INDEX
from maintainer.hudi.payloads import RequestedReplaceMetadata
from maintainer.hudi.table.state import TableState, open_table
from maintainer.services.base import Drift, NodeContext, NodeOutcome
from maintainer.services.clustering.effects import ClusteringApplyEffects
from maintainer.services.clustering.grouping import make_group, partition_candidates, plan_size
from maintainer.services.clustering.inputs import read_clustering_inputs
from maintainer.services.clustering.node import (
    approved_groups,
    clustering_payloads,
    pending_hashes,
    requested_metadata,
    requested_sha256,
    settings_of,
)
from maintainer.services.clustering.payload import encode, groups_of
from maintainer.services.clustering.planner import pending_clusterings
from maintainer.services.clustering.settings import ClusteringSpec
from maintainer.services.common.checks import effect_of
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.services.common.metadata_table import drop_if_approved, with_dropped
from maintainer.storage import Storage
from maintainer.tasks import TaskRunner
from maintainer.units import human_bytes


def _requested_of(table: TableState, instant: Instant) -> tuple[bytes, RequestedReplaceMetadata | None, str]:
    path = table.snapshot.timeline.file_path(instant, State.REQUESTED)
    where = table.storage.uri(path)
    data = table.storage.read_bytes(path)
    return data, payloads.decode_requested_replace_metadata(data, where), where


def _plan_id_of(requested: RequestedReplaceMetadata | None) -> str | None:
    return (requested.extra_metadata or {}).get(PLAN_ID_KEY) if requested is not None else None


def own_groups(node: NodePlan, requested: RequestedReplaceMetadata) -> list[ClusterGroup] | None:
    """The approved groups a requested clustering names, in its order (None: it names a group
    the node did not approve)."""
    by_files = {g.file_groups: g for g in approved_groups(node)}
    found = []
    for group in groups_of(requested):
        approved = by_files.get(frozenset((s.partition, s.file_id) for s in group))
        if approved is None:
            return None
        found.append(approved)
    return found or None


def is_plans_own_clustering(node: NodePlan, storage: Storage, plan_id: str, data: bytes, where: str) -> bool:
    """Is ``data`` a requested clustering this node's apply writes: approved groups only, byte
    for byte what apply builds for them?"""
    requested = payloads.decode_requested_replace_metadata(data, where)
    groups = own_groups(node, requested) if requested is not None else None
    if groups is None:
        return False
    effect = effect_of(node, ClusteringEffect)
    return encode(requested_metadata(groups, effect, storage, plan_id)) == data


def _as_settings_give(group: ClusterGroup, settings: ClusteringSpec) -> str | None:
    """None when the group's size, output file groups and metrics are what the clustering
    settings give for its slices (as the planner makes them), else why not."""
    sizes = [plan_size(piece, settings) for piece in group.slices]
    if len(sizes) > 1 and sum(sizes) > settings.max_bytes_per_group:
        return (
            f"the group's {human_bytes(sum(sizes))} exceed max_bytes_per_group "
            f"{human_bytes(settings.max_bytes_per_group)}: not a group the planner makes"
        )
    expected = make_group(group.partition, group.slices, settings)
    if expected.num_output_file_groups != group.num_output_file_groups:
        return (
            f"the group writes {group.num_output_file_groups} file group(s) where its slices and "
            f"target_file_max_bytes give {expected.num_output_file_groups}"
        )
    if dict(expected.metrics) != dict(group.metrics):
        return "the group's metrics are not those of its slices"
    return None


def _same_slices(group: ClusterGroup, current: dict[tuple[str, str], object]) -> str | None:
    """None when every slice of the group is still as approved, else why not."""
    for piece in group.slices:
        now = current.get((group.partition, piece.file_id))
        if now is None:
            return (
                f"file group {piece.file_id} is no longer a small latest slice to cluster (gone, replaced, "
                "grown past the small-file limit, or in a pending compaction or clustering)"
            )
        if now != piece:
            return (
                f"file group {piece.file_id} has new or changed files since the plan (a writer wrote into it)"
            )
    return None


class ClusteringApply:
    def __init__(self, ctx: NodeContext, runner: TaskRunner | None = None) -> None:
        self.ctx = ctx
        self.runner = runner or ctx.task_runner()
        self.dropped: tuple[str, ...] | None = None
        self.drift: list[Drift] = []
        self.runs: list[ClusteringOutcome] = []
        self.groups_run = 0

    def open(self) -> TableState:
        """The table as it is now, listing the partitions of the approved groups (pending
        clusterings run from their stored plans, which name their files)."""
        partitions = sorted({g.partition for g in approved_groups(self.ctx.node)})
        return open_table(self.ctx.table.path, self.ctx.storage_options, partitions)

    def pending(self, table: TableState) -> list[Instant]:
        inputs = read_clustering_inputs(table, settings_of(self.ctx.spec), self.ctx.clock())
        return pending_clusterings(inputs)

    # -- 1. pending clusterings, checked before the first write -----------------------------------
    def check_pending(self, table: TableState, pending: Sequence[Instant]) -> None:
        approved = pending_hashes(self.ctx.node)
        for instant in pending:
            data, requested, where = _requested_of(table, instant)
            if instant.timestamp in approved:
                if requested_sha256(data) != approved[instant.timestamp]:
                    raise ApplyError(
                        f"the pending clustering {instant.timestamp} was changed after the plan was made: "
                        "its plan is not the one reviewed",
                        where=where,
                        hint="nothing was written: make the plan again and review what it executes",
                    )
            elif _plan_id_of(requested) == self.ctx.plan_id:
                if not is_plans_own_clustering(self.ctx.node, table.storage, self.ctx.plan_id, data, where):
                    raise ApplyError(
                        f"the pending clustering {instant.timestamp} carries this plan's id but is not what "
                        "this plan approved (its groups, files or bytes differ from the approved ones)",
                        where=where,
                        hint="nothing was written: this plan did not write it; find out who did, roll it "
                        "back with Hudi, then make the plan again",
                    )
            else:
                raise ApplyError(
                    f"clustering {instant.timestamp} is pending in the table and the plan does not "
                    "execute it",
                    where=where,
                    hint="it appeared after the plan was made: make the plan again",
                )

    # -- 2./3. metadata table, pending clusterings ------------------------------------------------
    def handle_metadata_table(self, table: TableState) -> TableState:
        self.dropped = drop_if_approved(self.ctx, table, "clustering", (*COMPACTION_UPDATES, RECORD_INDEX))
        return self.open() if self.dropped is not None else table

    def finish_pending(self, table: TableState, pending: Sequence[Instant]) -> tuple[TableState, bool]:
        """Execute the pending clusterings; True when one was this plan's own (interrupted) one."""
        approved = set(pending_hashes(self.ctx.node))
        own = False
        for instant in pending:
            _, requested, _ = _requested_of(table, instant)
            own = own or _plan_id_of(requested) == self.ctx.plan_id
            plan = requested.clustering_plan if requested is not None else None
            self.groups_run += len(plan.input_groups or ()) if plan is not None else 0
            self.runs.append(self.run(table, instant.timestamp, None))
            approved.discard(instant.timestamp)
        self.drift += [
            Drift(t, "the pending clustering was already executed by someone else") for t in sorted(approved)
        ]
        return (self.open() if pending else table), own

    # -- 4. the new clustering ----------------------------------------------------------------------
    def approved(self, table: TableState) -> list[ClusterGroup]:
        names = [name for name in self.ctx.node.payloads if name.endswith(".clustering.requested")]
        if not names:
            return []
        groups = approved_groups(self.ctx.node)
        if names[0] in self.ctx.checked_payloads:  # the up-front check of the plan compared it
            return groups
        built = clustering_payloads(self.ctx.node, table.storage, self.ctx.plan_id)
        if self.ctx.payloads.get(names[0]) != built.get(names[0]):
            raise PlanError(
                f"payload {names[0]} does not match the approved plan body",
                where=str(names[0]),
                hint="plans are applied exactly as reviewed: make the plan again and review it",
            )
        return groups

    def current_slices(self, table: TableState, partitions: Sequence[str]) -> dict[tuple[str, str], object]:
        settings = settings_of(self.ctx.spec)
        custom = table.snapshot.config.merge_mode is MergeMode.CUSTOM
        current: dict[tuple[str, str], object] = {}
        for partition in partitions:
            for piece in partition_candidates(table.view, partition, settings, custom).slices:
                current[(partition, piece.file_id)] = piece
        return current

    def new_clustering(self, table: TableState) -> None:
        groups = self.approved(table)
        if not groups:
            return
        current = self.current_slices(table, sorted({g.partition for g in groups}))
        settings = settings_of(self.ctx.spec)
        keep = []
        for group in groups:
            why = _same_slices(group, current) or _as_settings_give(group, settings)
            if why is None:
                keep.append(group)
            else:
                self.drift.append(Drift(group.target, why))
        if not keep:
            return
        writer = TimelineWriter(table.storage, table.snapshot.config, self.ctx.clock)
        instant = writer.new_instant_time()
        effect = effect_of(self.ctx.node, ClusteringEffect)
        plan = requested_metadata(keep, effect, table.storage, self.ctx.plan_id)
        self.groups_run += len(keep)
        self.runs.append(self.run(table, instant, plan))

    def run(
        self, table: TableState, instant: str, plan: RequestedReplaceMetadata | None
    ) -> ClusteringOutcome:
        return run_clustering(
            table.storage,
            table.snapshot.config,
            instant,
            plan,
            self.runner,
            sync_metadata=bool(self.ctx.node.actions_of(SyncMetadataTable)),
            clock=self.ctx.clock,
        )

    def check_order(self) -> None:
        """The rows' order the node records is the one its settings give (before any write)."""
        effect = effect_of(self.ctx.node, ClusteringEffect)
        settings = settings_of(self.ctx.spec)
        if (tuple(effect.sort_columns), effect.layout) != (tuple(settings.sort_columns), settings.layout):
            raise PlanError(
                f"the node orders rows by {list(effect.sort_columns)} ({effect.layout}) but the "
                f"table's clustering settings say {list(settings.sort_columns)} ({settings.layout})",
                where=f"{self.ctx.node.table}.clustering",
                hint="plans are applied exactly as reviewed: make the plan again and review it",
            )

    # -- the node ------------------------------------------------------------------------------------
    def execute(self) -> NodeOutcome:
        if approved_groups(self.ctx.node):
            self.check_order()
        table = self.open()
        pending = self.pending(table)
        self.check_pending(table, pending)  # before the first write
        table = self.handle_metadata_table(table)
        table, own_finished = self.finish_pending(table, pending)
        if not own_finished:
            self.new_clustering(table)
        return self.outcome()

    def outcome(self) -> NodeOutcome:
        stats = [s for run in self.runs for s in run.stats]
        effects = ClusteringApplyEffects(
            clusterings=tuple(run.instant.timestamp for run in self.runs),
            groups_clustered=self.groups_run,
            file_groups_replaced=sum(len(run.replaced) for run in self.runs),
            files_written=tuple(sorted(s.path or "" for s in stats)),
            bytes_written=sum(s.file_size_in_bytes or 0 for s in stats),
            rolled_back_files=tuple(sorted(p for run in self.runs for p in run.rolled_back_files)),
            rollbacks=tuple(run.rollback_instant for run in self.runs if run.rollback_instant),
        )
        effects = with_dropped(effects, self.dropped)
        return NodeOutcome(effects, tuple(self.drift), _summary(effects, self.drift))


def _summary(effects: ClusteringApplyEffects, drift: list[Drift]) -> str:
    runs = effects.clusterings
    if not runs:
        text = "nothing to do"
    else:
        text = (
            f"{effects.file_groups_replaced} file group(s) in {effects.groups_clustered} group(s) clustered "
            f"into {len(effects.files_written)} new file(s) by {len(runs)} clustering(s); the replaced "
            "files stay until the clean removes them"
        )
    if effects.rollbacks:
        text += (
            f", an earlier failed attempt rolled back first (rollback {', '.join(effects.rollbacks)}, "
            f"{len(effects.rolled_back_files)} partial file(s) deleted)"
        )
    return text + (f", {len(drift)} drifted" if drift else "")


def execute_clustering(ctx: NodeContext) -> NodeOutcome:
    """The runner's entry point for clustering nodes."""
    return ClusteringApply(ctx).execute()
