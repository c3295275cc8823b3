"""Apply an approved metadata node: each approved part is derived again from the metadata
table as it is then, in Hudi's order (clean, compaction, archival), and done only as far as
the plan approved it and it is still due: the clean deletes only approved files still
deletable, a compaction runs only when one is still due (or pending), the archival moves only
approved instants still archivable."""

from __future__ import annotations

import functools
from dataclasses import replace

from maintainer.artifact.model import ArchiveMetadataTable, CleanMetadataTable, CompactMetadataTable
from maintainer.executors.faults import maybe_fail
from maintainer.executors.metadata import run_compaction
from maintainer.hudi.metadata.table import MetadataTable, open_metadata_table
from maintainer.hudi.table.snapshot import load_timeline
from maintainer.hudi.table.state import TableState, read_table_state
from maintainer.services.base import Drift, NodeContext, NodeOutcome
from maintainer.services.metadata.archival import run_metadata_archival
from maintainer.services.metadata.clean import run_metadata_clean
from maintainer.services.metadata.effects import MetadataApplyEffects
from maintainer.services.metadata.node import SERVICE
from maintainer.services.metadata.planner import decide_compaction, plan_archival, plan_clean, settings_of
from maintainer.storage import Storage


class _Run:
    """One apply of the node: the table re-read after each part, effects, drift, summary."""

    def __init__(self, ctx: NodeContext, storage: Storage) -> None:
        self.ctx = ctx
        self.storage = storage
        self.effects = MetadataApplyEffects()
        self.drift: list[Drift] = []
        self.done: list[str] = []
        self.fault = functools.partial(maybe_fail, SERVICE)

    def read(self) -> tuple[TableState, MetadataTable | None]:
        data = read_table_state(self.storage, partitions=(), verify=False)
        return data, open_metadata_table(data)

    def clean(self, approved: CleanMetadataTable, mdt: MetadataTable) -> None:
        current = plan_clean(mdt, self.ctx.spec, self.ctx.clock())
        wanted = set(approved.files)
        plan = replace(
            current,
            files=tuple(f for f in current.files if f.path in wanted),
            pending_cleans=tuple(t for t in current.pending_cleans if t in approved.pending),
        )
        outcome = run_metadata_clean(mdt.storage, mdt.state, plan, clock=self.ctx.clock)
        if outcome.refused:
            self.drift.append(Drift(approved.target, f"metadata table not cleaned: {outcome.refused}"))
            return
        deleted = {path for path in approved.files if not mdt.storage.exists(path)}
        self.drift += [
            Drift(f"{approved.target}/{path}", "not deleted: no longer deletable in the metadata table")
            for path in approved.files
            if path not in deleted
        ]
        self.effects = self.effects.merged(
            MetadataApplyEffects(
                metadata_files_cleaned=outcome.files_deleted,
                metadata_cleans=tuple(run.instant.timestamp for run in outcome.runs),
            )
        )
        if outcome.runs:
            self.done.append(f"metadata table cleaned ({outcome.files_deleted} files)")
        self.fault("metadata_after_clean")

    def compact(self, approved: CompactMetadataTable, data: TableState, mdt: MetadataTable) -> None:
        max_delta = settings_of(self.ctx.spec).compact_max_delta_commits
        decision = decide_compaction(mdt, data.snapshot.timeline, self.ctx.clock(), max_delta)
        compacted = run_compaction(mdt, decision, self.ctx.clock, self.fault)
        if compacted is None:
            self.drift.append(Drift(approved.target, f"metadata table not compacted: {decision.reason}"))
            return
        self.effects = self.effects.merged(
            MetadataApplyEffects(
                metadata_compaction=compacted.instant.timestamp,
                metadata_compactions=1,
                metadata_file_groups_compacted=compacted.file_groups,
            )
        )
        self.done.append(
            f"metadata table compacted at {compacted.instant.timestamp} ({compacted.file_groups} file groups)"
        )

    def archive(self, approved: ArchiveMetadataTable, data: TableState, mdt: MetadataTable) -> None:
        current = plan_archival(mdt, data.snapshot.timeline, self.ctx.spec)
        wanted = set(approved.instants)
        plan = replace(current, instants=tuple(i for i in current.instants if i.timestamp in wanted))
        outcome = run_metadata_archival(
            mdt.storage, mdt.state, data.snapshot.timeline, plan, fault=self.fault
        )
        still = {i.timestamp for i in load_timeline(mdt.storage, mdt.state.snapshot.config).instants}
        archived = sorted({i.timestamp for i in plan.instants} - still)
        self.drift += [
            Drift(f"{approved.target}/{t}", "not archived: no longer archivable in the metadata table")
            for t in approved.instants
            if t not in set(archived)
        ]
        self.effects = self.effects.merged(
            MetadataApplyEffects(
                metadata_instants_archived=len(archived), metadata_archive_file=outcome.archive_file
            )
        )
        if archived:
            self.done.append(f"{len(archived)} metadata table instant(s) archived")


def execute_metadata(ctx: NodeContext) -> NodeOutcome:
    """The approved parts in plan order (the planner's: clean, compaction, archival), the table
    read again before each."""
    run = _Run(ctx, ctx.storage())
    for action in ctx.node.actions:
        if not isinstance(action, CleanMetadataTable | CompactMetadataTable | ArchiveMetadataTable):
            continue
        data, mdt = run.read()
        if mdt is None:
            run.drift.append(Drift(action.target, "the table has no metadata table any more"))
            continue
        match action:
            case CleanMetadataTable():
                run.clean(action, mdt)
            case CompactMetadataTable():
                run.compact(action, data, mdt)
            case ArchiveMetadataTable():
                run.archive(action, data, mdt)
    message = "; ".join(run.done) if run.done else "nothing done"
    if run.drift:
        message += f"; {len(run.drift)} approved action(s) skipped as drift"
    return NodeOutcome(run.effects, tuple(run.drift), message)
