"""Read what the archive planner needs from a loaded table (read-only)."""

from __future__ import annotations

from maintainer.executors.archive import v6_log
from maintainer.hudi.instants.archived import archived_instants
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.table.snapshot import METADATA_TABLE_DIR, load_config, load_timeline
from maintainer.hudi.table.state import TableState
from maintainer.services.archive.planner import ArchiveInputs
from maintainer.services.common.clean_history import last_clean_ectr
from maintainer.services.common.neighbour_settings import CompactionView, compaction_defaults


def already_archived(table: TableState) -> frozenset[str]:
    """Active completed instants the archived timeline already holds (an interrupted archival)."""
    timeline = table.snapshot.timeline
    config = table.snapshot.config
    active = {i.timestamp for i in timeline.completed()}
    first = timeline.first_instant_time()
    if not active or first is None:
        return frozenset()
    if config.timeline_layout.has_lsm_history:
        times = {r.instant_time for r in archived_instants(table.storage, config.archive_dir, first)}
    else:
        times = {key[0] for key in v6_log.latest_archived_keys(table.storage, config.archive_dir)}
    return frozenset(t for t in times if t in active)


COUNTING_TRIGGERS = frozenset({"num_commits", "num_and_time"})


def compaction_max_delta_commits(table: TableState, compaction: CompactionView | None) -> int | None:
    """The delta-commit count the compaction trigger needs kept, on every MOR table: Hudi's
    archivers apply the guard whenever the trigger strategy counts delta commits, and its
    default (num_commits, 5) holds where the manifest says nothing about compaction or turns
    it off here (another job, or Hudi itself, may still compact the table)."""
    if not table.snapshot.config.is_mor:
        return None
    trigger = (compaction or compaction_defaults()).trigger
    return trigger.max_delta_commits if trigger.strategy in COUNTING_TRIGGERS else None


def load_archive_inputs(table: TableState, compaction: CompactionView | None = None) -> ArchiveInputs:
    return ArchiveInputs(
        timeline=table.snapshot.timeline,
        last_clean_ectr=last_clean_ectr(table),
        metadata_table_enabled=table.snapshot.metadata_table.enabled,
        metadata_compaction=metadata_compaction(table),
        already_archived=already_archived(table),
        compaction_max_delta_commits=compaction_max_delta_commits(table, compaction),
    )


def metadata_compaction(table: TableState) -> str | None:
    """The latest completed compaction of the table's metadata table (None: it has none, or the
    table has no metadata table)."""
    if not table.snapshot.metadata_table.exists:
        return None
    timeline = table.snapshot.metadata_table.timeline  # read already when planning synced it
    if timeline is None:
        storage = table.storage.child(METADATA_TABLE_DIR)
        timeline = load_timeline(storage, load_config(storage))
    latest = timeline.last_completed(Action.COMPACTION, Action.COMMIT)
    return latest.timestamp if latest is not None else None
