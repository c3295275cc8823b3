"""The table as a compaction node will leave it, on synthetic states: the new compaction
completed just after every instant, a new base file per compacted group (the newest slice,
without logs), executed pending compactions completed and no longer pending."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from maintainer.artifact.model import CompactSlice, ExecutePendingCompaction, NodePlan, NodeStatus
from maintainer.hudi.file_groups.fsview import PendingOperation, ViewInputs, build_view
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.table.projection import projected_instant_time
from maintainer.hudi.table.snapshot import MetadataTableInfo, TableSnapshot
from maintainer.hudi.table.state import TableState
from maintainer.services.compaction.model import capture_metrics
from maintainer.services.compaction.projection import project_after_compaction
from maintainer.storage import FileInfo, Storage
from tests.support.plans import compact_slice, node, slice_file
from tests.unit.services.compaction.states import (
    MB,
    base,
    completed,
    config,
    deltas,
    log,
    pending,
    timeline,
    ts,
)

NO_MDT = MetadataTableInfo(False, (), ())


def loaded(tmp_path: Path, names: Iterable[str], files: Mapping[str, list[tuple[str, int]]],
           layout: int = 1, inputs: ViewInputs | None = None) -> TableState:  # fmt: skip
    tl = timeline(names, layout)
    listings = {p: tuple(FileInfo(f"{p}/{n}", size, False) for n, size in fs) for p, fs in files.items()}
    snapshot = TableSnapshot(str(tmp_path), config(6 if layout == 1 else 8), tl, listings, NO_MDT)
    return TableState(Storage(str(tmp_path)), snapshot, build_view(tl, listings, inputs))


def compaction_node(
    operations: Iterable[CompactSlice] = (), pending_instants: Iterable[str] = ()
) -> NodePlan:
    why = "pending"
    pending = tuple(ExecutePendingCompaction(target=t, reason=why) for t in pending_instants)
    return node("t", "compaction", (*pending, *operations), status=NodeStatus.CHANGES)


def operation(partition: str, file_id: str, base_n: int, log_ns: Iterable[int]) -> CompactSlice:
    base_file = slice_file(base(file_id, base_n), 10 * MB)
    logs = tuple(slice_file(log(file_id, base_n, v), MB) for v, _ in enumerate(log_ns, start=1))
    return compact_slice(
        partition, file_id, ts(base_n), base_file, logs, capture_metrics(base_file, logs, 120 * MB)
    )


def v6_table(tmp_path: Path, inputs: ViewInputs | None = None, extra: Iterable[str] = ()) -> TableState:
    names = [*completed(1, "commit"), *deltas(2, 3), *extra]
    files = {
        "p": [(base("f1", 1), 10 * MB), (log("f1", 1, 1), MB), (log("f1", 1, 2), MB), (base("f2", 1), MB)]
    }
    return loaded(tmp_path, names, files, 1, inputs)


def test_the_projected_instant_follows_every_instant_and_completion_time() -> None:
    tl = timeline([*completed(1, "deltacommit", layout=2, done=9), *completed(2, "deltacommit", layout=2)], 2)
    assert projected_instant_time(tl) == "20250101000900001"
    assert projected_instant_time(tl, 3) == "20250101000900003"


def test_a_node_that_changes_nothing_projects_the_table_as_read(tmp_path: Path) -> None:
    table = v6_table(tmp_path)
    assert project_after_compaction(table, node("t", "compaction")) is table


def test_the_new_compaction_completes_and_writes_the_newest_slice_of_each_group(tmp_path: Path) -> None:
    table = v6_table(tmp_path)
    projected = project_after_compaction(table, compaction_node([operation("p", "f1", 1, [2, 3])]))

    instant = projected_instant_time(table.snapshot.timeline)
    assert projected.projection is not None and projected.projection.instants == (instant,)
    assert instant in projected.projection.description
    last = projected.snapshot.timeline.instants[-1]
    assert (last.timestamp, last.action, last.state) == (instant, Action.COMPACTION, State.COMPLETED)
    assert projected.snapshot.timeline.file_path(last).endswith(f"{instant}.commit")
    groups = {g.file_id: g for g in projected.view.file_groups("p")}
    newest = groups["f1"].latest_slice
    assert newest is not None and newest.base_instant == instant and not newest.log_files
    assert newest.base_file is not None and newest.base_file.size == 10 * MB
    assert [s.base_instant for s in groups["f1"].slices] == [ts(1), instant]
    assert len(groups["f2"].slices) == 1, "groups the node does not compact are unchanged"
    assert table.projection is None and len(table.view.file_groups("p")[0].slices) == 1


def test_on_layout_2_the_projected_compaction_has_a_completion_time(tmp_path: Path) -> None:
    names = [*completed(1, "commit", layout=2), *completed(2, "deltacommit", layout=2)]
    files = {"p": [(base("f1", 1), 10 * MB), (f".f1_{ts(2)}.log.1_0-1-2", MB)]}
    table = loaded(tmp_path, names, files, 2)
    logs = (slice_file(f".f1_{ts(2)}.log.1_0-1-2", MB),)
    op = compact_slice(
        "p", "f1", ts(1), slice_file(base("f1", 1), 10 * MB), logs, capture_metrics(None, (), 0)
    )
    projected = project_after_compaction(table, compaction_node([op]))
    last = projected.snapshot.timeline.instants[-1]
    assert last.completion_time is not None and last.completion_time > last.timestamp
    newest = projected.view.file_groups("p")[0].latest_slice
    assert newest is not None and newest.base_instant == last.timestamp and not newest.log_files


def test_an_executed_pending_compaction_completes_and_is_no_longer_pending(tmp_path: Path) -> None:
    pending_op = PendingOperation(ts(4), "compaction", ts(1))
    inputs = ViewInputs(pending_compaction={("p", "f1"): pending_op})
    table = v6_table(tmp_path, inputs, pending(4, "compaction", "requested"))
    assert table.snapshot.timeline.pending_compactions()

    projected = project_after_compaction(table, compaction_node(pending_instants=[ts(4)]))
    assert projected.projection is not None and projected.projection.instants == ()
    assert not projected.snapshot.timeline.pending_compactions()
    assert not projected.view.inputs.pending_compaction
    entry = projected.snapshot.timeline.entry(ts(4), Action.COMPACTION)
    assert entry is not None and entry.instant.is_completed
    newest = projected.view.file_groups("p")[0].latest_slice
    assert newest is not None and newest.base_instant == ts(4) and newest.base_file is not None
