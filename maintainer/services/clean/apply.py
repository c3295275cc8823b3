"""Apply one approved clean node: never more than the plan.

On the table as it is now (re-read under the table lock):
1. the metadata table is dropped first when the plan says so (and refused when the table has
   one the plan did not expect);
2. pending cleans the plan named (or an interrupted apply of this very plan left) are finished
   first, re-executing their requested plan as Hudi does; any other pending clean fails the node,
   and so does a named one whose ``.clean.requested`` is no longer the bytes the plan hashed, or
   one carrying this plan's id that deletes a file or empties a partition the plan did not
   approve (the id is no proof; checked before anything is written). Of either, only the files
   that no clean may delete now (not in a live slice: the latest of its file group, savepointed,
   needed by a pending compaction or clustering) are deleted; the others are drift;
3. the new clean deletes the intersection of the approved files and of what the same planner
   says is deletable now (a savepoint, a restore or a pending compaction created since the plan
   wins); whatever was dropped is drift, with its reason. The ``.clean.requested`` written is
   rebuilt from the approved effect and that intersection: byte-identical to the plan's payload
   when nothing drifted.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from maintainer.artifact.model import CleanEffect, DeleteFile, FinishPendingClean, NodePlan, SyncMetadataTable
from maintainer.errors import ApplyError, PlanError
from maintainer.executors.clean.executor import (
    BeforeComplete,
    CleanRun,
    plan_deletions,
    read_requested_plan,
    run_clean_instant,
)
from maintainer.executors.common.metadata_sync import CLEAN_UPDATES, sync_clean
from maintainer.hudi.instants.instant import Instant, State
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import CleanerPlan, decode_cleaner_plan, encode_avro
from maintainer.hudi.table.state import TableState, open_table
from maintainer.project.models import TableSpec
from maintainer.services.base import Drift, NodeContext, NodeOutcome
from maintainer.services.clean.effects import CleanApplyEffects, ResolvedInstants
from maintainer.services.clean.node import requested_sha256
from maintainer.services.clean.payload import (
    approved_deletions,
    cleaner_plan_for,
    node_cleaner_plan,
    partition_of,
)
from maintainer.services.clean.planner import CleanPlanResult, live_files, partitions_planner, plan_clean
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.clean.state import clean_settings, whole_table_inputs
from maintainer.services.common.checks import data_file_problem, effect_of
from maintainer.services.common.ledger import PLAN_ID_KEY, plan_id_of_instant
from maintainer.services.common.metadata_table import drop_if_approved, with_dropped
from maintainer.storage import Storage
from maintainer.tasks import TaskRunner

CurrentPlanner = Callable[[TableState, TableSpec, datetime], CleanPlanResult]


def recheck_planner(table: TableState, spec: TableSpec, now: datetime) -> CleanPlanResult:
    """The same planner (on the columnar view, as the plan) on the table as it is now, over
    every partition the table was opened with (the approved ones), not today's incremental
    window: the approved files may lie outside it (e.g. once a pending clean was finished, the
    window starts at its earliest commit to retain), and per partition the rules are the same.
    The trigger (max_commits) is not asked again: it decided when the clean was scheduled, the
    plan (as Hudi schedules a clean while another is still pending), and a pending clean this
    node finishes first would otherwise turn the reviewed deletions into drift. Sizes are not
    asked of the names-only listing (apply reports the reviewed ones)."""
    inputs = whole_table_inputs(table, "apply re-checks the approved partitions")
    settings = replace(clean_settings(spec.settings_of(CleanSpec) or CleanSpec()), max_commits=0)
    if table.projection is not None:
        return plan_clean(inputs, settings, now)
    return plan_clean(inputs, settings, now, partitions_planner(table.snapshot.listings, sizes=False))


class CleanExecutor:
    def __init__(self, ctx: NodeContext, planner: CurrentPlanner | None = None,
                 tasks: TaskRunner | None = None) -> None:  # fmt: skip
        self.ctx = ctx
        self.planner = planner or recheck_planner
        self.tasks = tasks or ctx.task_runner()
        self.dropped: tuple[str, ...] | None = None
        """The metadata table's partitions, when the node dropped it."""
        self.resolved: dict[str, str] | None = None
        """The projected instants of the plan's clean -> the real ones, when it named any."""
        self.drift: list[Drift] = []
        self.runs: list[CleanRun] = []
        self.approved_plan: CleanerPlan | None = None

    # -- reading ------------------------------------------------------------------------------
    def open(self) -> TableState:
        """The table as it is now, listing only the partitions the approved clean touches,
        names-only (the re-derived clean needs names; sizes are asked of the deleted files)."""
        return open_table(
            self.ctx.table.path, self.ctx.storage_options, self.approved_partitions(), sizes=False
        )

    def approved_partitions(self) -> list[str]:
        """The partitions of the new clean and of the pending cleans the plan finishes."""
        files, partitions = approved_deletions(self.ctx.node)
        pending = [path for action in self.pending_approved().values() for path in action.paths]
        return sorted({partition_of(path) for path in [*files, *pending]} | set(partitions))

    def pending_approved(self) -> dict[str, FinishPendingClean]:
        """instant time -> each pending clean the plan finishes."""
        return {a.target: a for a in self.ctx.node.actions_of(FinishPendingClean)}

    def writer(self, table: TableState) -> TimelineWriter:
        return TimelineWriter(table.storage, table.snapshot.config, self.ctx.clock)

    def sync(self, table: TableState) -> BeforeComplete | None:
        """``metadata_table: sync``: each clean's metadata deltacommit, before it completes."""
        if not self.ctx.node.actions_of(SyncMetadataTable):
            return None
        return functools.partial(sync_clean, table.storage, clock=self.ctx.clock)

    # -- 1. metadata table ------------------------------------------------------------------------
    def handle_metadata_table(self, table: TableState) -> TableState:
        self.dropped = drop_if_approved(self.ctx, table, "deleting files", CLEAN_UPDATES)
        return self.open() if self.dropped is not None else table

    # -- 2. pending cleans --------------------------------------------------------------------------
    def reviewed_requested(self, table: TableState, instant: Instant) -> bytes:
        """The ``.clean.requested`` of a pending clean the plan finishes, refused unless it is
        still the bytes the plan hashed."""
        path = table.snapshot.timeline.file_path(instant, State.REQUESTED)
        data = table.storage.read_bytes(path)
        expected = self.pending_approved()[instant.timestamp].sha256
        if requested_sha256(data) != expected:
            raise ApplyError(
                f"the pending clean {instant.timestamp} was changed after the plan was made: "
                "its plan is not the one reviewed"
                if expected
                else f"the plan does not record what the pending clean {instant.timestamp} deletes",
                where=table.storage.uri(path),
                hint="nothing was deleted: make the plan again and review what it finishes",
            )
        return data

    def own_requested(self, table: TableState, instant: Instant) -> frozenset[str]:
        """A pending clean that carries this plan's id (an interrupted apply of it, or a forgery):
        the table-relative paths it deletes, refused unless they are all files this node approved
        (what apply writes is the approved list, or the part of it still deletable) and the
        partitions it empties are approved ones. The plan id is no proof: anyone can write it."""
        path = table.snapshot.timeline.file_path(instant, State.REQUESTED)
        where = table.storage.uri(path)
        paths, unapproved = unapproved_deletions(
            self.ctx.node, table.storage, table.storage.read_bytes(path), where
        )
        if unapproved:
            raise _not_approved(instant, unapproved, where)
        return paths

    def check_pending(self, table: TableState) -> None:
        """Before anything is written: each pending clean the plan finishes is as reviewed, and
        one that says it is this plan's own deletes only what the plan approved."""
        approved = self.pending_approved()
        for instant in table.snapshot.timeline.pending_cleans():
            if instant.timestamp in approved:
                self.reviewed_requested(table, instant)
            elif plan_id_of_instant(table.storage, table.snapshot.timeline, instant) == self.ctx.plan_id:
                self.own_requested(table, instant)

    def finish_own(self, table: TableState, instant: Instant) -> CleanRun:
        """Finish this plan's own interrupted clean: only its files (all approved, checked) that
        are still deletable under the current view; the others are drift."""
        listed = sorted(self.own_requested(table, instant))
        live = live_files(table.view, table.view.inputs.savepointed_files)
        self.drift += [Drift(path, f"kept: {live[path]}") for path in listed if path in live]
        keep = frozenset(path for path in listed if path not in live)
        writer = self.writer(table)
        data = read_requested_plan(writer, instant)
        return run_clean_instant(writer, data, self.tasks, instant, keep, self.sync(table))

    def finish_reviewed(self, table: TableState, instant: Instant) -> CleanRun:
        """Finish a pending clean the plan named: only its listed files that are still
        deletable under the current view; the others are drift."""
        data = self.reviewed_requested(table, instant)
        listed = sorted(self.pending_approved()[instant.timestamp].paths)
        live = live_files(table.view, table.view.inputs.savepointed_files)
        self.drift += [Drift(path, f"kept: {live[path]}") for path in listed if path in live]
        keep = frozenset(path for path in listed if path not in live)
        return run_clean_instant(self.writer(table), data, self.tasks, instant, keep, self.sync(table))

    def finish_pending(self, table: TableState) -> tuple[TableState, bool]:
        """Finish the pending cleans; True when one was this plan's own (interrupted) clean."""
        approved = set(self.pending_approved())
        own = False
        pending = table.snapshot.timeline.pending_cleans()
        for instant in pending:
            carries = plan_id_of_instant(table.storage, table.snapshot.timeline, instant)
            if instant.timestamp not in approved and carries != self.ctx.plan_id:
                raise ApplyError(
                    f"clean {instant.timestamp} is pending in the table and the plan does not finish it",
                    where=self.ctx.table.path,
                    hint="it appeared after the plan was made: make the plan again",
                )
            own = own or carries == self.ctx.plan_id
            if instant.timestamp in approved:
                self.runs.append(self.finish_reviewed(table, instant))
            else:
                self.runs.append(self.finish_own(table, instant))
            approved.discard(instant.timestamp)
        for gone in sorted(approved):
            self.drift.append(Drift(gone, "the pending clean was already finished by someone else"))
        return (self.open() if pending else table), own

    # -- 3. the new clean ---------------------------------------------------------------------------
    def approved_payload(self) -> bytes | None:
        """The approved ``.clean.requested``: as the up-front check of the plan passed it on
        (rebuilt from the node's body and found equal), else rebuilt and compared here."""
        names = [name for name in self.ctx.node.payloads if name.endswith(".clean.requested")]
        if not names:
            return None
        checked = self.ctx.checked_payloads.get(names[0])
        if checked is not None and isinstance(checked.record, CleanerPlan):
            self.approved_plan = checked.record
            return checked.data
        self.approved_plan, rebuilt = node_cleaner_plan(self.ctx.node, self.ctx.storage(), self.ctx.plan_id)
        if self.ctx.payloads.get(names[0]) != rebuilt:
            raise PlanError(
                f"payload {names[0]} does not match the approved plan body",
                where=str(names[0]),
                hint="plans are applied exactly as reviewed: make the plan again and review it",
            )
        return rebuilt

    def new_clean(self, table: TableState, approved: bytes | None) -> None:
        if approved is None:
            return
        approved_files, approved_partitions = approved_deletions(self.ctx.node)
        current = self.planner(table, self.ctx.spec, self.ctx.clock())
        deletable = {f.path for f in current.files}
        # only the approved files the planner no longer deletes can have left storage
        deletable |= lost_from_storage(table, [path for path in approved_files if path not in deletable])
        keep = [path for path in approved_files if path in deletable]
        drifted = [path for path in approved_files if path not in deletable]
        listed_names: dict[str, frozenset[str]] = {}  # each partition's names once, however many drift
        self.drift += [Drift(path, drift_reason(table, current, path, listed_names)) for path in drifted]
        kept_partitions = {partition_of(path) for path in drifted}
        emptied = [p for p in approved_partitions
                   if p in current.partitions_to_delete and p not in kept_partitions]  # fmt: skip
        self.drift += [Drift(p, "the partition is no longer emptied by this clean")
                       for p in approved_partitions if p not in emptied]  # fmt: skip
        if not keep and not emptied:
            return
        effect = self.resolved_effect(current)
        if (
            effect is self.ctx.node.effect
            and len(keep) == len(approved_files)
            and emptied == approved_partitions
        ):
            payload, plan = approved, self.approved_plan  # nothing drifted: the reviewed bytes
        else:
            plan = cleaner_plan_for(effect, table.storage, self.ctx.plan_id, keep, emptied)
            payload = encode_avro(plan)
        run = run_clean_instant(
            self.writer(table), payload, self.tasks, before_complete=self.sync(table), plan=plan
        )
        self.runs.append(run)

    def resolved_effect(self, current: CleanPlanResult) -> CleanEffect:
        """The approved effect, with the instants that existed only in the plan's projection
        (this plan's compaction, whose instant apply took) replaced by the real ones."""
        effect = effect_of(self.ctx.node, CleanEffect)
        projected = set(effect.projected_instants)
        if not projected:
            return effect
        resolved = effect
        ectr = current.earliest_commit_to_retain
        if effect.earliest_commit_to_retain in projected:
            resolved = replace(
                resolved,
                earliest_commit_to_retain=ectr.timestamp if ectr else None,
                earliest_commit_to_retain_action=ectr.completed_action.value if ectr else None,
            )
        if effect.last_completed_commit in projected:
            resolved = replace(resolved, last_completed_commit=current.last_completed_commit)
        pairs = [
            (effect.earliest_commit_to_retain, resolved.earliest_commit_to_retain),
            (effect.last_completed_commit, resolved.last_completed_commit),
        ]
        self.resolved = {old: new for old, new in pairs if old in projected and new}
        return resolved

    # -- the node -----------------------------------------------------------------------------------
    def execute(self) -> NodeOutcome:
        approved = self.approved_payload()  # verified before anything is written
        table = self.open()
        self.check_pending(table)  # before anything is written
        table = self.handle_metadata_table(table)
        table, own_finished = self.finish_pending(table)
        if not own_finished:
            self.new_clean(table, approved)
        return self.outcome()

    def bytes_deleted(self) -> int:
        """The planned sizes of the files this run deleted (a file a pending clean deleted, not
        in this plan's list, counts 0: its size was never read)."""
        sizes = {a.target: a.size for a in self.ctx.node.actions_of(DeleteFile)}
        return sum(
            sizes.get(f"{r.partition}/{name}" if r.partition else name, 0)
            for run in self.runs
            for r in run.results
            for name in r.deleted
            if name not in r.already_gone
        )

    def outcome(self) -> NodeOutcome:
        failed = [path for run in self.runs for path in run.failed]
        effects = CleanApplyEffects(
            cleans=tuple(run.instant.timestamp for run in self.runs),
            files_deleted=sum(run.files_deleted for run in self.runs),
            bytes_deleted=self.bytes_deleted(),
            partitions_deleted=tuple(
                r.partition for run in self.runs for r in run.results if r.partition_deleted
            ),
            files_failed=tuple(failed),
        )
        if self.resolved is not None:
            effects = effects.merged(ResolvedInstants(resolved_instants=self.resolved))
        effects = with_dropped(effects, self.dropped)
        if failed:
            failures = [f"{path} ({why})" for run in self.runs for path, why in run.failures]
            raise ApplyError(
                f"{len(failed)} file(s) could not be deleted (recorded as failed in the clean): "
                + "; ".join(failures[:5]),
                where=self.ctx.table.path,
                hint="fix what each reason names (storage permissions; a symbolic link, which "
                "maintainer never deletes through: put the real file there or remove the link by "
                "hand); the next clean plans them again",
            )
        return NodeOutcome(effects, tuple(self.drift), _summary(effects, self.drift))


def unapproved_deletions(
    node: NodePlan, storage: Storage, data: bytes, where: str
) -> tuple[frozenset[str], list[str]]:
    """(the table-relative paths the clean plan ``data`` deletes, what of it ``node`` did not
    approve: files it deletes and partitions it empties that the node does not list; an empty
    plan is not approved either)."""
    plan = decode_cleaner_plan(data, where)
    if plan is None:
        return frozenset(), ["nothing (it is empty)"]
    deletions = plan_deletions(storage, plan, where)
    files, partitions = approved_deletions(node)
    paths = frozenset(posixpath.join(d.partition, n) for d in deletions for n in d.names)
    unapproved = sorted(paths - set(files))
    unapproved += sorted({d.partition for d in deletions if d.delete_partition} - set(partitions))
    return paths, unapproved


def clean_not_written_by_plan(
    node: NodePlan, storage: Storage, timeline: Timeline, instant: Instant
) -> str | None:
    """Why the clean ``instant`` (carrying the plan id) is not one this node's apply wrote:
    its requested plan deletes what the node did not approve (None: it could be)."""
    path = timeline.file_path(instant, State.REQUESTED)
    _, unapproved = unapproved_deletions(node, storage, storage.read_bytes(path), storage.uri(path))
    return f"it deletes {', '.join(unapproved[:5])}, which the plan does not list" if unapproved else None


def _not_approved(instant: Instant, unapproved: list[str], where: str) -> ApplyError:
    shown = ", ".join(unapproved[:5]) + (f" and {len(unapproved) - 5:,} more" if len(unapproved) > 5 else "")
    return ApplyError(
        f"the pending clean {instant.timestamp} carries this plan's id but is not what this plan "
        f"approved: it deletes {shown}, which the plan does not list",
        where=where,
        hint="nothing was deleted: this plan did not write it; find out who did, remove it with "
        "Hudi (or by hand, with its .inflight), then make the plan again",
    )


def lost_from_storage(table: TableState, approved: list[str]) -> set[str]:
    """The approved files storage no longer has (their partition listed without them), kept in
    the clean as Hudi's cleaner keeps a planned file it finds gone: deleting a missing file
    counts as done (``CleanActionExecutor.deleteFileAndGetResult``), so the clean records it as
    deleted and its metadata deltacommit tombstones it (a plan listed from the metadata table
    approves files only that table still lists). Not a savepointed file, nor a path that is not
    a Hudi data file of this table."""
    present: dict[str, set[str] | None] = {}
    lost: set[str] = set()
    savepointed = table.view.inputs.savepointed_files
    for path in approved:
        partition, _, name = path.rpartition("/")
        if partition not in present:  # each partition's names once (not once per approved file)
            listed = table.snapshot.listings.get(partition)
            present[partition] = None if listed is None else {f.name for f in listed}
        names = present[partition]
        if names is None or data_file_problem(path) is not None:
            continue
        if name not in names and name not in savepointed:
            lost.add(path)
    return lost


def drift_reason(
    table: TableState,
    current: CleanPlanResult,
    path: str,
    listed_names: dict[str, frozenset[str]] | None = None,
) -> str:
    """Why an approved file is not deleted now: first what is wrong with the path itself (an
    edited plan: outside the table, not a Hudi data file), then what changed in the table.
    ``listed_names``: partition -> the names listed in it, filled as partitions are first asked
    (shared by the calls for one drift, so a partition's names are taken once)."""
    problem = data_file_problem(path)
    if problem is not None:
        return f"refused: {problem}"
    partition, _, name = path.rpartition("/")
    listed = table.snapshot.listings.get(partition)
    if listed is not None:
        cache = listed_names if listed_names is not None else {}
        present = cache.get(partition)
        if present is None:
            cache[partition] = present = frozenset(f.name for f in listed)
        if name not in present:
            return "the file is already gone"
    if name in table.view.inputs.savepointed_files:
        return f"kept: the file is savepointed (savepoints {', '.join(current.savepoint_times)})"
    ectr = current.earliest_commit_to_retain
    return (
        "kept: no longer deletable under the current timeline (earliest commit to retain now "
        f"{ectr.timestamp if ectr else 'none'}; a pending compaction, clustering or restore may need it)"
    )


def _summary(effects: CleanApplyEffects, drift: list[Drift]) -> str:
    cleans = effects.cleans
    text = f"{effects.files_deleted} files deleted in {len(cleans)} clean(s)" if cleans else "nothing to do"
    return text + (f", {len(drift)} drifted" if drift else "")


def execute_clean(ctx: NodeContext) -> NodeOutcome:
    """The runner's entry point for clean nodes."""
    return CleanExecutor(ctx).execute()


__all__ = ["PLAN_ID_KEY", "CleanExecutor", "CurrentPlanner", "drift_reason", "execute_clean"]
