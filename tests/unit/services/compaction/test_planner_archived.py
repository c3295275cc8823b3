"""The compaction planner on timeline layout 2 after a deltacommit's archival: the log of a
deltacommit requested before the previous compaction and completed after it (a concurrent
writer) is in the latest slice and goes into the next compaction, its completion time read
from the archived timeline."""

from __future__ import annotations

from maintainer.hudi.file_groups.fsview import build_view
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.compaction.planner import CompactionInputs, find_operations
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from maintainer.storage import FileInfo

from .states import MB, base, completed, config, log, ts

EVERY = CompactionSettings(max_delta_commits=1, strategy=StrategyName.UNBOUNDED)
D, C = 2, 3
"""Deltacommit D (requested at 2, completed at 6, archived) and compaction C (3, completed 4)."""


class Archived:
    def __init__(self, times: dict[str, str]) -> None:
        self.times = times

    def completion_time(self, instant: str) -> str | None:
        return self.times.get(instant)


def inputs(archived: Archived) -> CompactionInputs:
    names = [*completed(C, "compaction", layout=2, done=4), *completed(7, layout=2, done=8)]
    timeline = Timeline.from_file_names(names, 2, ".hoodie/timeline", archived)
    files = [(base("a", 1), MB), (log("a", D), 10), (base("a", C), MB), (log("a", 7), 20)]
    listing = {"p": [FileInfo(f"p/{name}", size, False) for name, size in files]}
    return CompactionInputs(timeline, build_view(timeline, listing), config(8))


def test_an_archived_deltacommit_completed_before_the_instant_is_compacted() -> None:
    """BaseHoodieCompactionPlanGenerator.generateCompactionPlan keeps the latest slice's log files
    for which CompletionTimeQueryView.isCompletedBefore(compactionInstant, deltaCommitTime)
    holds; CompletionTimeQueryViewV2.getCompletionTime finds an archived instant's completion
    time in the archived timeline."""
    found = find_operations(inputs(Archived({ts(D): ts(6)})), EVERY, ts(10))
    (op,) = found.candidates
    assert op.base_instant == ts(C)
    assert [f.name for f in op.log_files] == [log("a", D), log("a", 7)]


def test_an_archived_deltacommit_completed_after_the_instant_is_left_out() -> None:
    """CompletionTimeQueryViewV2.isCompletedBefore: the archived completion time is compared, not
    the requested time (D requested at 2, completed at 9: not before a compaction at 8.5)."""
    found = find_operations(inputs(Archived({ts(D): ts(9)})), EVERY, f"{ts(8)[:-3]}500")
    (op,) = found.candidates
    assert [f.name for f in op.log_files] == [log("a", 7)]


def test_an_archived_deltacommit_of_unknown_completion_is_left_out() -> None:
    """CompletionTimeQueryViewV2.isCompletedBefore is false without a completion time (the view
    puts the log in the latest slice: HoodieFileGroup.getBaseInstantTime)."""
    found = find_operations(inputs(Archived({})), EVERY, ts(10))
    (op,) = found.candidates
    assert op.base_instant == ts(C) and [f.name for f in op.log_files] == [log("a", 7)]
