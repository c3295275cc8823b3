"""Read what the savepoint planner needs from a loaded table (read-only)."""

from __future__ import annotations

from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import State
from maintainer.hudi.table.state import TableState
from maintainer.services.common.clean_history import last_clean_ectr
from maintainer.services.savepoint.planner import SavepointInputs


def pending_clean_ectrs(table: TableState) -> tuple[str, ...]:
    timeline = table.snapshot.timeline
    found = []
    for clean in timeline.pending_cleans():
        path = timeline.file_path(clean, State.REQUESTED)
        plan = payloads.decode_cleaner_plan(table.storage.read_bytes(path), table.storage.uri(path))
        if plan is not None and plan.earliest_instant_to_retain is not None:
            found.append(plan.earliest_instant_to_retain.timestamp)
    return tuple(found)


def load_savepoint_inputs(table: TableState) -> SavepointInputs:
    return SavepointInputs(
        timeline=table.snapshot.timeline,
        last_clean_ectr=last_clean_ectr(table),
        pending_clean_ectrs=pending_clean_ectrs(table),
        timezone=table.snapshot.config.timeline_timezone,
    )
