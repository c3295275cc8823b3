"""The metadata table's own clean, as Hudi's metadata writer runs it (table versions 8 and 9).

Hudi 1.0 and 1.1 (``HoodieBackedTableMetadataWriter.performTableServices``) clean the metadata
table first, then compact it, then archive its timeline. ``cleanIfNecessary``:

* skips the clean while fewer than 3 completed metadata instants (any action) have a requested
  time after the latest completed ``commit`` (a finished metadata compaction) of the metadata
  timeline, so that a reader that opened the log files just before a compaction finds them;
* else calls ``writeClient.clean()``: a fresh instant time on the metadata timeline (only the
  table-version-6 writer uses the ``<deltacommit>002`` suffix), under the metadata write config.

That config (``HoodieMetadataWriteUtils.createMetadataWriteConfig``) borrows the data table's
cleaner policy: KEEP_LATEST_COMMITS retains ``max(20, (int) (data commits retained * 1.2))``
commits (20 is ``HoodieMetadataConfig.DEFAULT_METADATA_CLEANER_COMMITS_RETAINED``),
KEEP_LATEST_FILE_VERSIONS ``ceil(data versions * 1.2)`` versions and KEEP_LATEST_BY_HOURS
``ceil(data hours * 1.2)`` hours (HUDI-7402, apache/hudi#10655; later releases add
``hoodie.metadata.use.main.table.clean.policy``, #17935, and borrow the data table's
``hoodie.clean.max.commits``, #17819); ``hoodie.clean.max.commits`` keeps its default (1); the
failed-writes policy is the data writer's (EAGER by default, under which a clean rolls nothing
back: ``CleanerUtils.rollbackFailedWrites``). A plan that deletes nothing is not written
(``CleanPlanActionExecutor.requestClean``). The metadata table has no metadata table: nothing is
synced. The instant files are the data clean's (:mod:`maintainer.executors.clean.executor`):
``HoodieCleanerPlan``, an empty inflight file (version 8+), ``HoodieCleanMetadata``.

The planner is the data table's (:func:`maintainer.services.clean.planner.plan_clean`) on the
metadata table's file slices, every partition scanned (a metadata table has a handful).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from maintainer.clock import Clock, utc_now
from maintainer.executors.clean.executor import (
    CleanRun,
    plan_deletions,
    read_requested_plan,
    run_clean_instant,
)
from maintainer.hudi.instants.instant import Action, Instant
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import (
    ActionInstant,
    CleanerPlan,
    CleanFileInfo,
    decode_cleaner_plan,
    encode_avro,
)
from maintainer.hudi.table.state import TableState, read_table_state
from maintainer.services.clean.planner import (
    CleanPlanResult,
    FileToDelete,
    live_files,
    plan_clean,
)
from maintainer.services.clean.policy import CleanPolicy, CleanSettings
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.clean.state import read_last_clean, whole_table_inputs
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.storage import Storage
from maintainer.tasks import InProcessRunner, TaskRunner

DEFAULT_METADATA_CLEANER_COMMITS_RETAINED = 20
"""``HoodieMetadataConfig.DEFAULT_METADATA_CLEANER_COMMITS_RETAINED``."""
RETENTION_FACTOR = 1.2
"""The metadata table keeps 1.2 times the data table's retention (createMetadataWriteConfig)."""
INSTANTS_AFTER_COMPACTION = 3
"""cleanIfNecessary waits for this many completed instants after the latest compaction."""
CLEAN_MAX_COMMITS = 1
"""``hoodie.clean.max.commits`` of the metadata write config (Hudi's default, not borrowed)."""


@dataclass(frozen=True, slots=True)
class MetadataCleanSettings:
    """The metadata table's cleaner settings (Hudi's names; defaults are those derived from the
    data table's defaults: KEEP_LATEST_COMMITS, 10 commits, 3 versions, 24 hours)."""

    clean_policy: CleanPolicy = CleanPolicy.KEEP_LATEST_COMMITS
    clean_commits_retained: int = DEFAULT_METADATA_CLEANER_COMMITS_RETAINED
    clean_file_versions_retained: int = 4
    clean_hours_retained: int = 29

    @classmethod
    def derived_from(cls, data: CleanSpec) -> MetadataCleanSettings:
        """The settings Hudi's metadata write config derives from the data table's cleaner."""
        return cls(
            clean_policy=CleanPolicy.parse(data.policy),
            clean_commits_retained=int(
                max(DEFAULT_METADATA_CLEANER_COMMITS_RETAINED, data.commits_retained * RETENTION_FACTOR)
            ),
            clean_file_versions_retained=math.ceil(data.file_versions_retained * RETENTION_FACTOR),
            clean_hours_retained=math.ceil(data.hours_retained * RETENTION_FACTOR),
        )

    def cleaner(self) -> CleanSettings:
        return CleanSettings(
            policy=self.clean_policy,
            commits_retained=self.clean_commits_retained,
            file_versions_retained=self.clean_file_versions_retained,
            hours_retained=self.clean_hours_retained,
            incremental=False,
            max_commits=CLEAN_MAX_COMMITS,
        )


@dataclass(frozen=True)
class MetadataCleanPlan:
    """What a clean of the metadata table would do now."""

    settings: MetadataCleanSettings
    files: tuple[FileToDelete, ...] = ()
    """Files of the new clean (paths relative to the metadata table)."""
    pending_cleans: tuple[str, ...] = ()
    """Pending cleans of the metadata table, finished first (as Hudi's CleanActionExecutor does)."""
    earliest_commit_to_retain: Instant | None = None
    last_completed_commit: str = ""
    reason: str = ""
    """Why the new clean deletes what it does, or why there is none."""
    result: CleanPlanResult | None = field(default=None, compare=False, repr=False)

    @property
    def has_changes(self) -> bool:
        return bool(self.files) or bool(self.pending_cleans)

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


def clean_wait(timeline: Timeline) -> str:
    """Why cleanIfNecessary would not clean yet ("" when it would)."""
    compaction = timeline.last_completed(Action.COMPACTION, Action.COMMIT, Action.REPLACE_COMMIT)
    if compaction is None:
        return ""
    after = [i for i in timeline.completed() if i.timestamp > compaction.timestamp]
    if len(after) >= INSTANTS_AFTER_COMPACTION:
        return ""
    return (
        f"not yet: {len(after)} completed instant(s) after the metadata table's compaction "
        f"{compaction.timestamp}, fewer than {INSTANTS_AFTER_COMPACTION} (Hudi leaves readers of "
        "the compacted log files that time)"
    )


def _current(
    mdt_state: TableState, settings: MetadataCleanSettings, now: datetime, *, trigger: bool = True
) -> CleanPlanResult:
    """The data clean planner on the metadata table (``trigger`` False: hoodie.clean.max.commits
    is not asked again, as on apply: it decided when the clean was planned)."""
    last_clean = read_last_clean(mdt_state.storage, mdt_state.snapshot.timeline)
    inputs = whole_table_inputs(mdt_state, "every partition of the metadata table is scanned", last_clean)
    cleaner = settings.cleaner()
    return plan_clean(inputs, cleaner if trigger else replace(cleaner, max_commits=0), now)


def plan_metadata_clean(
    mdt_state: TableState, settings: MetadataCleanSettings, now: datetime
) -> MetadataCleanPlan:
    """What Hudi's metadata writer would clean in the metadata table now (pure: reads only the
    state passed in, and the last clean's instant file)."""
    timeline = mdt_state.snapshot.timeline
    pending = tuple(i.timestamp for i in timeline.pending_cleans())
    wait = clean_wait(timeline)
    if wait:
        return MetadataCleanPlan(settings, pending_cleans=pending, reason=wait)
    result = _current(mdt_state, settings, now)
    files = tuple(result.files)
    if result.not_triggered:
        reason = result.not_triggered
    elif not files:
        reason = f"nothing to delete ({result.retention_reason})"
    else:
        reason = (
            f"{len(files)} file(s) of older file slices: {result.policy.value}, {result.retention_reason}"
        )
    return MetadataCleanPlan(
        settings,
        files=files if not result.not_triggered else (),
        pending_cleans=pending,
        earliest_commit_to_retain=result.earliest_commit_to_retain,
        last_completed_commit=result.last_completed_commit,
        reason=reason,
        result=result,
    )


# -- execution ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetadataCleanOutcome:
    runs: tuple[CleanRun, ...] = ()
    """The cleans carried out: pending ones finished, then the new one."""
    dropped: tuple[tuple[str, str], ...] = ()
    """(path, why) of planned files not deleted: no longer deletable now."""
    refused: str = ""
    """Why nothing was done ("" when the plan was carried out)."""

    @property
    def files_deleted(self) -> int:
        return sum(run.files_deleted for run in self.runs)

    @property
    def failures(self) -> list[tuple[str, str]]:
        return [failure for run in self.runs for failure in run.failures]


def metadata_cleaner_plan(
    storage: Storage,
    result: CleanPlanResult,
    paths: Sequence[str],
    plan_id: str | None = None,
) -> CleanerPlan:
    """The ``HoodieCleanerPlan`` of a metadata clean deleting ``paths`` (relative to the
    metadata table), as CleanPlanActionExecutor builds it: absolute file paths per partition, an
    empty ``filesToBeDeletedPerPartition``, no partition deleted, and extra metadata that is
    empty (Hudi records savepoint times there, and a metadata table has no savepoints) but for
    the plan id, when given."""
    ectr = result.earliest_commit_to_retain
    grouped: dict[str, list[CleanFileInfo]] = {}
    for path in sorted(paths):
        partition = path.rpartition("/")[0]
        grouped.setdefault(partition, []).append(
            CleanFileInfo(file_path=storage.uri(path), is_bootstrap_base_file=False)
        )
    return CleanerPlan(
        policy=result.policy.value,
        earliest_instant_to_retain=(
            ActionInstant(timestamp=ectr.timestamp, action=ectr.completed_action.value, state="COMPLETED")
            if ectr
            else None
        ),
        last_completed_commit_timestamp=result.last_completed_commit,
        files_to_be_deleted_per_partition={},
        file_paths_to_be_deleted_per_partition={p: tuple(infos) for p, infos in sorted(grouped.items())},
        partitions_to_be_deleted=(),
        extra_metadata={PLAN_ID_KEY: plan_id} if plan_id else {},
    )


def _finish_pending(
    writer: TimelineWriter, mdt_state: TableState, tasks: TaskRunner
) -> tuple[list[CleanRun], list[tuple[str, str]]]:
    """Finish the metadata table's pending cleans, deleting only what no clean may keep now."""
    runs: list[CleanRun] = []
    dropped: list[tuple[str, str]] = []
    live = live_files(mdt_state.view, mdt_state.view.inputs.savepointed_files)
    for instant in mdt_state.snapshot.timeline.pending_cleans():
        data = read_requested_plan(writer, instant)
        only = _still_deletable(writer.storage, data, live, dropped)
        runs.append(run_clean_instant(writer, data, tasks, instant, only))
    return runs, dropped


def _another_cleaner(pending: list[str]) -> str:
    return (
        f"clean {', '.join(pending)} appeared on the metadata table after the plan was made: another "
        "writer is cleaning it, so nothing was done; plan again once it has finished"
    )


def _still_deletable(
    storage: Storage, data: bytes, live: dict[str, str], dropped: list[tuple[str, str]]
) -> frozenset[str]:
    """The files of a pending clean's plan ``data`` that are in no live slice now; the others
    go to ``dropped``."""
    where = f"clean plan in {storage.base_uri}"
    plan = decode_cleaner_plan(data, where)
    if plan is None:
        return frozenset()
    deletions = plan_deletions(storage, plan, where)
    listed = [f"{d.partition}/{n}" if d.partition else n for d in deletions for n in d.names]
    dropped.extend((path, f"kept: {live[path]}") for path in listed if path in live)
    return frozenset(path for path in listed if path not in live)


def run_metadata_clean(
    mdt_storage: Storage,
    mdt_state: TableState,
    plan: MetadataCleanPlan,
    instant_time: str | None = None,
    clock: Clock = utc_now,
    *,
    tasks: TaskRunner | None = None,
    plan_id: str | None = None,
) -> MetadataCleanOutcome:
    """Carry out ``plan`` on the metadata table as ``mdt_state`` shows it now: nothing when a
    clean the plan did not see is pending (another writer is cleaning); the plan's pending cleans
    are finished first (then the metadata table is read again); the new clean (at ``instant_time``,
    default a fresh time) deletes the planned files that the same planner still deletes, the
    others are dropped with why. Every instant goes requested -> inflight -> completed through
    the TimelineWriter."""
    unplanned = [i.timestamp for i in mdt_state.snapshot.timeline.pending_cleans()]
    unplanned = [t for t in unplanned if t not in plan.pending_cleans]
    if unplanned:
        return MetadataCleanOutcome(refused=_another_cleaner(unplanned))
    runner = tasks or InProcessRunner()
    writer = TimelineWriter(mdt_storage, mdt_state.snapshot.config, clock)
    runs, dropped = _finish_pending(writer, mdt_state, runner)
    if not plan.files:
        return MetadataCleanOutcome(tuple(runs), tuple(dropped))
    if runs:  # the pending cleans changed the metadata table: re-read it
        mdt_state = read_table_state(mdt_storage, partitions=list(mdt_state.view.partitions), verify=False)
    wait = clean_wait(mdt_state.snapshot.timeline)
    current = None if wait else _current(mdt_state, plan.settings, clock(), trigger=False)
    deletable = {f.path for f in current.files} if current is not None else set()
    keep = [f.path for f in plan.files if f.path in deletable]
    why = wait or "no longer deletable under the metadata table's current timeline"
    dropped += [(f.path, why) for f in plan.files if f.path not in deletable]
    if not keep or current is None:
        return MetadataCleanOutcome(tuple(runs), tuple(dropped))
    cleaner_plan = metadata_cleaner_plan(mdt_storage, current, keep, plan_id)
    run = run_clean_instant(
        writer, encode_avro(cleaner_plan), runner, plan=cleaner_plan, instant_time=instant_time
    )
    return MetadataCleanOutcome((*runs, run), tuple(dropped))
