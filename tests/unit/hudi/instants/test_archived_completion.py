"""Completion times of archived deltacommits (timeline layout 2): the file-system view places
the log file of a deltacommit older than the active timeline by the completion time the LSM
history records, reads that history lazily (only for such logs, only the data files that can
hold them), and puts a log whose completion time is nowhere to be found in the latest slice.

The concurrent-writer case: deltacommit D requested before compaction C and completed after
it; D's log belongs to C's slice, before and after D is archived."""

from __future__ import annotations

import pickle
from pathlib import Path

from maintainer.executors.archive import lsm
from maintainer.hudi.file_groups.fsview import FileSystemView, build_view
from maintainer.hudi.instants.archived import ArchivedCompletionTimes, read_completion_times
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads import LSMTimelineInstant
from maintainer.storage import FileInfo, Storage

T = [f"202401010000{i:02d}000" for i in range(60)]
FG, P = "aaaa-0", "p=1"
HISTORY = ".hoodie/timeline/history"
D, C = T[10], T[12]
"""Deltacommit D was requested before compaction C and completed (T[14]) after C completed."""


def base(ts: str) -> FileInfo:
    return FileInfo(f"{P}/{FG}_0-1-1_{ts}.parquet", 100, False)


def log(ts: str) -> FileInfo:
    return FileInfo(f"{P}/.{FG}_{ts}.log.1_0-1-1", 10, False)


class CountingSource:
    """A CompletionTimeSource that answers from a dict and records every question."""

    def __init__(self, times: dict[str, str]) -> None:
        self.times = times
        self.asked: list[str] = []

    def completion_time(self, instant: str) -> str | None:
        self.asked.append(instant)
        return self.times.get(instant)


def after_archival(source: CountingSource | ArchivedCompletionTimes | None) -> Timeline:
    """The active timeline once every instant up to D is archived: C and two later deltacommits."""
    names = [f"{C}.compaction.requested", f"{C}_{T[13]}.commit", f"{T[20]}_{T[21]}.deltacommit",
             f"{T[22]}_{T[23]}.deltacommit"]  # fmt: skip
    return Timeline.from_file_names(names, 2, ".hoodie/timeline", source)


FILES = [base(T[1]), log(T[5]), log(D), base(C), log(T[20]), log(T[22])]


def slices(view: FileSystemView) -> list[tuple[str, list[str]]]:
    return [
        (s.base_instant, [f.instant_time for f in s.log_files]) for g in view.file_groups() for s in g.slices
    ]


def test_an_archived_log_is_placed_by_its_archived_completion_time() -> None:
    """HoodieFileGroup.getBaseInstantTime with CompletionTimeQueryViewV2.getCompletionTime: the
    completion time of an instant before the active timeline comes from the archived timeline,
    so D (completed T[14], after C) stays in C's slice; T[5] (completed T[6]) stays in T[1]'s."""
    source = CountingSource({T[5]: T[6], D: T[14]})
    view = build_view(after_archival(source), {P: FILES})
    assert slices(view) == [(T[1], [T[5]]), (C, [D, T[20], T[22]])]
    assert sorted(source.asked) == [T[5], D], "asked once per archived log instant, never for active ones"


def test_an_archived_log_the_archive_does_not_know_joins_the_latest_slice() -> None:
    """HoodieFileGroup.getBaseInstantTime: no completion time (CompletionTimeQueryViewV2 found
    the instant neither active nor archived) -> "the log file is still pending, it always belongs
    to the latest file slice"; with no slice yet, the log opens its own."""
    view = build_view(after_archival(CountingSource({})), {P: FILES})
    assert slices(view) == [(T[1], []), (C, [T[5], D, T[20], T[22]])]
    log_only = build_view(after_archival(CountingSource({})), {P: [log(T[5]), log(D)]})
    assert slices(log_only) == [(T[5], [T[5], D])]


def test_no_archived_timeline_is_asked_when_no_log_is_older_than_the_active_timeline() -> None:
    """CompletionTimeQueryViewV2.getCompletionTime goes to the archived timeline only for an
    instant it did not load from the active one; archived base files need no completion time."""
    source = CountingSource({})
    view = build_view(after_archival(source), {P: [base(T[1]), base(C), log(T[20]), log(T[22])]})
    assert slices(view) == [(T[1], []), (C, [T[20], T[22]])]
    assert source.asked == []


def test_an_instant_of_the_active_timeline_is_never_looked_up_in_the_archive() -> None:
    """CompletionTimeQueryViewV2.getCompletionTime: an instant at or after the loaded range that is
    not completed there is pending (Option.empty), without reading the archived timeline."""
    source = CountingSource({T[20]: T[1]})
    timeline = after_archival(source)
    assert timeline.completion_time(T[20]) == T[21]
    assert timeline.completion_time(T[30]) is None and timeline.archived_completion_time(T[30]) is None
    assert source.asked == []
    assert timeline.completion_time(D) is None and source.asked == [D]


def test_the_archived_timeline_travels_with_filtered_timelines() -> None:
    """Projections and time travel (Timeline.filter, as_of) keep the archived timeline."""
    source = CountingSource({D: T[14]})
    timeline = after_archival(source).as_of(T[20])
    assert timeline.archived is source and timeline.completion_time(D) == T[14]


# -- the LSM history reader ----------------------------------------------------------------------


def row(instant: str, completion: str | None, action: str = "deltacommit") -> LSMTimelineInstant:
    return LSMTimelineInstant(
        instant_time=instant, completion_time=completion, action=action, metadata=b"x" * 1000
    )


def history(tmp_path: Path) -> Storage:
    """Two archival batches: [T1, T5] and [D, T11] (plus a row without completion time)."""
    storage = Storage(str(tmp_path))
    lsm.write_history(storage, HISTORY, [row(T[1], T[2], "commit"), row(T[5], T[6])])
    lsm.write_history(storage, HISTORY, [row(D, T[14]), row(T[11], None, "clean")])
    return storage


def test_the_lsm_reader_reads_only_the_data_files_that_can_hold_the_instant(tmp_path: Path) -> None:
    """CompletionTimeQueryViewV2.loadCompletionTimeIncrementally loads archived instants lazily
    (LSMTimeline file names give each data file's instant range, so only files holding the
    instant need reading); a record without completion time completed at its instant time
    (setCompletionTime)."""
    times = ArchivedCompletionTimes(history(tmp_path), HISTORY)
    assert times.files_read == []
    assert times.completion_time(D) == T[14]
    assert times.files_read == [f"{D}_{T[11]}_0.parquet"]
    assert times.completion_time(T[11]) == T[11], "no completion time recorded: its instant time"
    assert times.completion_time(T[5]) == T[6]
    assert times.completion_time(T[3]) is None, "inside a file's range but not archived"
    assert times.completion_time(T[40]) is None
    assert times.files_read == [f"{D}_{T[11]}_0.parquet", f"{T[1]}_{T[5]}_0.parquet"], "each read once"


def test_the_lsm_reader_reads_two_columns_and_pickles_without_its_cache(tmp_path: Path) -> None:
    storage = history(tmp_path)
    path = f"{HISTORY}/{T[1]}_{T[5]}_0.parquet"
    assert read_completion_times(storage, path) == {T[1]: T[2], T[5]: T[6]}
    times = ArchivedCompletionTimes(storage, HISTORY)
    assert times.completion_time(T[5]) == T[6]
    copy = pickle.loads(pickle.dumps(times))
    assert copy.files_read == [] and copy.completion_time(D) == T[14]


def test_a_table_without_history_has_no_archived_completion_times(tmp_path: Path) -> None:
    times = ArchivedCompletionTimes(Storage(str(tmp_path)), HISTORY)
    assert times.completion_time(D) is None and times.files_read == []


def test_the_view_of_a_real_history_places_the_archived_log_in_the_later_slice(tmp_path: Path) -> None:
    """The concurrent-writer case end to end in the hudi layer: the same slices as before D was
    archived, from the LSM history, reading only the file that holds D."""
    times = ArchivedCompletionTimes(history(tmp_path), HISTORY)
    view = build_view(after_archival(times), {P: FILES})
    assert slices(view) == [(T[1], [T[5]]), (C, [D, T[20], T[22]])]
    assert sorted(times.files_read) == [f"{T[1]}_{T[5]}_0.parquet", f"{D}_{T[11]}_0.parquet"]
    before = Timeline.from_file_names(
        [f"{T[1]}_{T[2]}.commit", f"{T[5]}_{T[6]}.deltacommit", f"{D}_{T[14]}.deltacommit",
         *(e for e in (f"{C}.compaction.requested", f"{C}_{T[13]}.commit", f"{T[20]}_{T[21]}.deltacommit",
                       f"{T[22]}_{T[23]}.deltacommit"))],
        2, ".hoodie/timeline",
    )  # fmt: skip
    assert slices(build_view(before, {P: FILES})) == slices(view), "archival moved no log file"
