"""The state backend on local disk: the last applied manifest merged table by table under a
conditional write (a refused write reads and merges again), the run history, the layout an
older maintainer kept, and a state that keeps changing or cannot be read."""

from __future__ import annotations

import json
import multiprocessing
import sys
from pathlib import Path
from typing import Any

import pytest

from maintainer.errors import StateConflictError, StorageError
from maintainer.graph.manifest import Applied, ManifestTable, dump_record
from maintainer.runner.results import NodeResult, NodeRunStatus
from maintainer.runner.state_backend import (
    MANIFEST_PATH,
    STATE_WRITE_ATTEMPTS,
    StateBackend,
    failed_tables,
    merge_state,
    run_id,
    table_figures,
)
from maintainer.services.clean.settings import CleanSpec
from maintainer.storage import Storage
from maintainer.storage.conditional import GcsConditionalStore, LocalConditionalStore
from tests.unit.graph.manifests import compiled, metadata, table
from tests.unit.graph.specs import spec
from tests.unit.storage.test_conditional import FakeGcsClient, FakeGcsError

EARLY = Applied("plan-early", "2026-11-28T01:00:00.000Z", "run-early")
LATE = Applied("plan-late", "2026-11-28T02:00:00.000Z", "run-late")


META = metadata()


def entry(retained: int, name: str = "t") -> ManifestTable:
    return table(spec(name).model_copy(update={"clean": CleanSpec(commits_retained=retained)}))


def kept(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / MANIFEST_PATH).read_text())
    return data


def test_merge_keeps_every_other_table_and_the_later_apply_of_a_table() -> None:
    first = merge_state(None, {"a": entry(3), "b": entry(3)}, LATE, metadata("late"))
    assert first.applied == LATE and first.metadata == metadata("late")
    second = merge_state(
        first, {"b": entry(5), "c": entry(5)}, EARLY, metadata("early")
    )  # finished before LATE
    assert sorted(second.tables) == ["a", "b", "c"]
    assert second.tables["b"].spec == entry(3).spec  # LATE's entry of b stays
    assert second.tables["c"].applied == EARLY
    assert second.applied == LATE and second.metadata == metadata("late")


def test_partial_applies_leave_every_table_in_the_state(tmp_path: Path) -> None:
    backend = StateBackend.at(str(tmp_path))
    assert backend.read_manifest() is None
    assert backend.keep_applied({"a": entry(3)}, EARLY, META).attempts == 1
    assert backend.keep_applied({"b": entry(3)}, LATE, META).attempts == 1
    state = backend.read_manifest()
    assert state is not None and sorted(state.tables) == ["a", "b"]
    assert state.tables["a"].applied.plan_id == "plan-early"
    assert state.applied.plan_id == "plan-late"


class RacedStore(LocalConditionalStore):
    """Local disk where, before each of this store's writes, another apply really writes the
    state first (through its own backend), ``races`` times."""

    def __init__(self, storage: Storage, other: StateBackend, races: int) -> None:
        super().__init__(storage)
        self.other, self.races, self.raced = other, races, 0

    def _race(self) -> None:
        if self.raced < self.races:
            self.raced += 1
            self.other.keep_applied({f"other{self.raced}": entry(self.raced)}, EARLY, META)

    def create_if_absent(self, path: str, data: bytes) -> str:
        self._race()
        return super().create_if_absent(path, data)

    def replace_if_version(self, path: str, data: bytes, version: str) -> str:
        self._race()
        return super().replace_if_version(path, data, version)


def test_a_refused_write_reads_and_merges_again(tmp_path: Path) -> None:
    other = StateBackend.at(str(tmp_path))
    storage = Storage(str(tmp_path))
    backend = StateBackend(storage, RacedStore(storage, other, races=2), sleep=lambda _: None)
    update = backend.keep_applied({"mine": entry(1)}, LATE, META)
    assert update.attempts == 3  # refused twice: the other apply created, then replaced it
    assert sorted(kept(tmp_path)["tables"]) == ["mine", "other1", "other2"]


def test_a_state_that_keeps_changing_fails_naming_the_object(tmp_path: Path) -> None:
    other = StateBackend.at(str(tmp_path))
    storage = Storage(str(tmp_path))
    backend = StateBackend(
        storage, RacedStore(storage, other, races=STATE_WRITE_ATTEMPTS), sleep=lambda _: None
    )
    with pytest.raises(StateConflictError, match="kept changing under this apply") as raised:
        backend.keep_applied({"mine": entry(1)}, LATE, META)
    assert raised.value.where == str(tmp_path / MANIFEST_PATH)
    assert "mine" not in kept(tmp_path)["tables"]  # nothing half-written: the others' tables are all there
    assert len(kept(tmp_path)["tables"]) == STATE_WRITE_ATTEMPTS


def gcs_storage() -> Storage:
    storage = Storage.__new__(Storage)
    storage.base_uri, storage.options = "gs://bucket/state", {}
    storage._fs, storage._root = None, "bucket/state"
    return storage


class RacedGcsStore(GcsConditionalStore):
    """GCS (generation preconditions) where another apply writes first, before each write."""

    def __init__(self, client: FakeGcsClient, other: StateBackend, races: int) -> None:
        super().__init__(gcs_storage(), client, (FakeGcsError,))
        self.other, self.races, self.raced = other, races, 0

    def _upload(self, path: str, data: bytes, generation: int, doing: str) -> str:
        if path == MANIFEST_PATH and self.raced < self.races:
            self.raced += 1
            self.other.keep_applied({f"other{self.raced}": entry(self.raced)}, EARLY, META)
        return super()._upload(path, data, generation, doing)


def test_on_gcs_a_write_refused_by_its_generation_is_merged_again() -> None:
    client = FakeGcsClient()
    other = StateBackend(gcs_storage(), GcsConditionalStore(gcs_storage(), client, (FakeGcsError,)))
    backend = StateBackend(gcs_storage(), RacedGcsStore(client, other, races=2), sleep=lambda _: None)
    assert backend.manifest_uri == "gs://bucket/state/last_applied/manifest.json"
    update = backend.keep_applied({"mine": entry(1)}, LATE, META)
    assert update.attempts == 3
    state = other.read_manifest()
    assert state is not None and sorted(state.tables) == ["mine", "other1", "other2"]


def _apply_tables(root: str, names: list[str], applied_at: str) -> None:
    backend = StateBackend.at(root)
    for name in names:
        backend.keep_applied({name: entry(1)}, Applied(f"plan-{name}", applied_at, f"run-{name}"), META)


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_applies_racing_in_processes_lose_no_table(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    writers = [
        context.Process(
            target=_apply_tables, args=(str(tmp_path), [f"w{n}t{k}" for k in range(5)], f"2026-11-28T0{n}")
        )
        for n in range(6)
    ]
    for process in writers:
        process.start()
    for process in writers:
        process.join(60)
    assert [process.exitcode for process in writers] == [0] * 6
    assert sorted(kept(tmp_path)["tables"]) == sorted(f"w{n}t{k}" for n in range(6) for k in range(5))


def test_the_layout_of_an_older_maintainer_is_read_and_merged(tmp_path: Path) -> None:
    folder = tmp_path / "last_applied"
    folder.mkdir()
    old = dump_record(compiled([spec("a")], project="p"))  # the applied plan's manifest.json, as it was
    (folder / "manifest.json").write_text(json.dumps(old))
    (folder / "applied.json").write_text(json.dumps({"plan_id": "old-plan", "applied_at": "then"}))
    backend = StateBackend.at(str(tmp_path))
    state = backend.read_manifest()
    assert state is not None and state.applied == Applied("old-plan", "then", "") and "a" in state.tables
    backend.keep_applied({"b": entry(2)}, LATE, META)
    assert sorted(kept(tmp_path)["tables"]) == ["a", "b"]


def test_an_older_layout_without_its_applied_json_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "last_applied").mkdir()
    (tmp_path / MANIFEST_PATH).write_text(json.dumps(dump_record(compiled([spec("a")]))))
    with pytest.raises(
        StorageError, match=r"applied\.json that said which plan it applied is missing"
    ) as raised:
        StateBackend.at(str(tmp_path)).read_manifest()
    assert raised.value.hint is not None and "delete it" in raised.value.hint


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda s: s["tables"]["a"].pop("applied"), "tables.a.applied: missing"),
        (lambda s: s["applied"].update(run_id=7), "applied.run_id: Input should be a valid string"),
        (lambda s: s["tables"]["a"].update(extra=1), "tables.a.extra: unknown field"),
    ],
)
def test_a_state_out_of_shape_is_an_error_naming_the_field_and_is_not_overwritten(
    tmp_path: Path, edit: Any, problem: str
) -> None:
    backend = StateBackend.at(str(tmp_path))
    backend.keep_applied({"a": entry(1, "a")}, EARLY, META)
    state = kept(tmp_path)
    edit(state)
    (tmp_path / MANIFEST_PATH).write_text(json.dumps(state))
    with pytest.raises(StorageError, match=r"is not a maintainer manifest\.json") as raised:
        backend.keep_applied({"b": entry(2)}, LATE, META)
    assert problem in raised.value.message and raised.value.where == str(tmp_path / MANIFEST_PATH)
    assert json.loads((tmp_path / MANIFEST_PATH).read_text()) == state


def test_an_unreadable_state_is_an_error_and_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "last_applied").mkdir()
    (tmp_path / MANIFEST_PATH).write_text("{not json")
    backend = StateBackend.at(str(tmp_path))
    with pytest.raises(StorageError, match="is not valid JSON") as raised:
        backend.keep_applied({"b": entry(2)}, LATE, META)
    assert raised.value.hint is not None and "delete it" in raised.value.hint
    assert (tmp_path / MANIFEST_PATH).read_text() == "{not json"


def test_runs_are_recorded_once_with_per_table_figures(tmp_path: Path) -> None:
    nodes = (
        NodeResult("a.clean", NodeRunStatus.SUCCESS, effects={"files_deleted": 3, "bytes_deleted": 300}),
        NodeResult("a.rollback", NodeRunStatus.SUCCESS, effects={"rollbacks": ["i1", "i2"], "dry": True}),
        NodeResult("b.clean", NodeRunStatus.ERROR, message="boom"),
    )
    figures = table_figures(nodes)
    assert figures["a"] == {
        "nodes": {"clean": "success", "rollback": "success"},
        "drift": 0,
        "effects": {"files_deleted": 3, "bytes_deleted": 300, "rollbacks": 2},
    }
    assert figures["b"]["nodes"] == {"clean": "error"} and failed_tables(nodes) == {"b"}
    run = run_id("2026-11-28T01:02:03.456Z", "abc")
    assert run == "20261128010203456Z-abc"
    backend = StateBackend.at(str(tmp_path))
    backend.record_run(run, b'{"results": []}\n', figures)
    assert (tmp_path / "runs" / run / "run_results.json").read_bytes() == b'{"results": []}\n'
    assert json.loads((tmp_path / "runs" / run / "tables.json").read_text()) == figures
    with pytest.raises(StorageError, match="already exists"):
        backend.record_run(run, b"{}", figures)
