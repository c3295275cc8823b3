"""plan -> show -> apply through the CLI, on datagen tables and copies of every fixture: the
issue's "Done when" for apply (same reads before and after, exactly the planned files deleted,
Hudi-decodable clean instants) and its safety cases (tampering, applying twice, a savepoint
made after the plan, a concurrent apply, a crash after ``.clean.inflight``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from maintainer.artifact.model import CleanEffect
from maintainer.cli import main
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import SavepointMetadata, encode_avro
from maintainer.hudi.payloads.savepoint import SavepointPartitionMetadata
from maintainer.hudi.table.state import open_table
from maintainer.runner.lock import TableLock, read_lock
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.storage import Storage
from tests.support import artifacts
from tests.support import fixtures as fx
from tests.support.clean_checks import data_files, decoded_cleans, deleted_by, reads
from tests.support.plans import clean_effect_of, files_to_delete

pytestmark = pytest.mark.spark

OTHER_SERVICES_OFF = (
    "rollback: {enabled: false}\n    compaction: {enabled: false}\n    archive: {enabled: false}"
)


@dataclass
class Project:
    root: Path
    lake: Path
    tables: dict[str, Path]

    @property
    def plan_dir(self) -> Path:
        return self.root / "target" / "plan"

    def cli(self, *args: str) -> int:
        command, *rest = args
        return main([command, *rest, "--project-dir", str(self.root)])

    def plan_json(self) -> dict[str, Any]:
        return artifacts.plan_json(self.plan_dir)

    def planned(self, table: str) -> set[str]:
        (entry,) = [t for t in artifacts.saved_plan(self.plan_dir).plan.tables if t.name == table]
        return {path for node in entry.nodes for path in files_to_delete(node)}

    def ectr(self, table: str) -> str | None:
        (entry,) = [t for t in artifacts.saved_plan(self.plan_dir).plan.tables if t.name == table]
        (node,) = entry.nodes
        return clean_effect_of(node).earliest_commit_to_retain

    def run_results(self) -> dict[str, Any]:
        return artifacts.run_results(self.root / "target")


def write_manifest(root: Path, tables: dict[str, Path], retained: int = 3) -> None:
    entries = "".join(
        f"  - name: {name}\n    path: {path}\n    metadata_table: drop\n    {OTHER_SERVICES_OFF}\n"
        f"    clean: {{commits_retained: {retained}}}\n"
        for name, path in sorted(tables.items())
    )
    (root / "tables" / "example.yml").write_text(f"version: 1\ntables:\n{entries}")


@pytest.fixture
def make_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spark: Any
) -> Callable[[dict[str, Path], int], Project]:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv(FAULT_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def make(tables: dict[str, Path], retained: int = 3) -> Project:
        root = tmp_path / "project"
        assert main(["init", str(root)]) == 0
        write_manifest(root, tables, retained)
        return Project(root, tmp_path / "lake", tables)

    return make


def datagen(lake: Path, name: str, version: int, commits: int = 10) -> Path:
    workload = WorkloadSpec(partitions=3, file_groups=2, commits=commits, rows_per_commit=40, seed=version)
    generate(str(lake / name), DatagenSpec(name, "cow", version, workload))
    return lake / name


def snapshot_state(project: Project, names: Iterable[str]) -> dict[str, tuple[set[str], Any]]:
    return {
        name: (data_files(project.tables[name]), reads(project.tables[name], project.ectr(name)))
        for name in names
    }


def check_exactly_planned(
    project: Project, name: str, before: tuple[set[str], Any], readable: bool = True
) -> None:
    table = project.tables[name]
    files_before, reads_before = before
    planned = project.planned(name)
    assert files_before - data_files(table) == planned, name
    if readable:
        assert reads(table, project.ectr(name)) == reads_before, name
    cleans = [
        c
        for c in decoded_cleans(table)
        if c.metadata and (c.metadata["extraMetadata"] or {}).get(PLAN_ID_KEY)
    ]
    if planned:
        (clean,) = cleans
        assert deleted_by(clean) == planned
        assert clean.plan["extraMetadata"][PLAN_ID_KEY] == project.plan_json()["plan_id"]
        assert clean.plan_bytes == (project.plan_dir / "payloads" / f"{name}.clean.requested").read_bytes()
    else:
        assert cleans == []


# -- the whole story -------------------------------------------------------------------------------


def test_plan_show_apply_on_datagen_tables(
    make_project: Callable[..., Project], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lake = tmp_path / "lake"
    project = make_project({"cow6": datagen(lake, "cow6", 6, 12), "cow8": datagen(lake, "cow8", 8, 12)})
    assert project.cli("plan", "--detailed-exitcode") == 2
    assert project.planned("cow6") and project.planned("cow8")
    capsys.readouterr()
    assert main(["show", str(project.plan_dir), "--format", "markdown"]) == 0
    review = capsys.readouterr().out
    assert "cow6" in review and "cow8" in review
    before = snapshot_state(project, ["cow6", "cow8"])
    assert project.cli("apply", str(project.plan_dir)) == 0
    out = capsys.readouterr().out
    assert "OK cow6.clean" in out and "OK cow8.clean" in out
    for name in ("cow6", "cow8"):
        check_exactly_planned(project, name, before[name])
    results = project.run_results()
    assert results["plan_id"] == project.plan_json()["plan_id"] and results["status"] == "success"
    by_id = {n["node"]: n for n in results["results"]}
    assert by_id["cow6.clean"]["adapter_response"]["files_deleted"] == len(project.planned("cow6"))
    assert set(by_id["cow6.clean"]) >= {"status", "timing", "execution_time", "adapter_response", "drift"}

    # applied twice: nothing to do (not an error), nothing more happens
    files_now = data_files(project.tables["cow6"])
    assert project.cli("apply", str(project.plan_dir)) == 0
    assert "Nothing to do: plan" in capsys.readouterr().out
    assert data_files(project.tables["cow6"]) == files_now
    assert len(decoded_cleans(project.tables["cow6"])) == 1

    # the next plan starts from the clean (incremental) and has nothing to do
    assert project.cli("plan", "--detailed-exitcode") == 0


def _every_fixture(lake: Path, hudi_fixtures_root: Path) -> dict[str, Path]:
    tables = {}
    for index, name in enumerate(fx.fixture_names()):
        unpacked = fx.unpack(name, hudi_fixtures_root)
        target = lake / f"fx{index:02d}"
        shutil.copytree(unpacked.path, target)
        tables[f"fx{index:02d}"] = target
    return tables


@pytest.mark.fixtures
def test_every_fixture_through_the_cli(
    make_project: Callable[..., Project], tmp_path: Path, hudi_fixtures_root: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    tables = _every_fixture(tmp_path / "lake", hudi_fixtures_root)
    names = {key: fx.fixture_names()[int(key[2:])] for key in tables}
    project = make_project(tables, 1)
    assert project.cli("plan") == 0
    assert main(["show", str(project.plan_dir), "--format", "markdown"]) == 0
    readable = [key for key in tables if "lance" not in names[key]]
    before = snapshot_state(project, readable)
    before.update({key: (data_files(tables[key]), None) for key in tables if key not in before})
    assert project.cli("apply", "--threads", "4") == 0, capsys.readouterr().err
    assert sum(bool(project.planned(key)) for key in tables) >= 10
    for key in tables:
        check_exactly_planned(project, key, before[key], readable=key in readable)
        assert not (tables[key] / ".hoodie" / "metadata").exists(), names[key]
        assert not open_table(str(tables[key])).snapshot.config.has_metadata_table


# -- safety -------------------------------------------------------------------------------------------


@pytest.fixture
def one_table(make_project: Callable[..., Project], tmp_path: Path) -> Project:
    project = make_project({"t": datagen(tmp_path / "lake", "t", 6, 10)})
    assert project.cli("plan") == 0
    assert project.planned("t")
    return project


def test_a_tampered_plan_is_refused(one_table: Project, capsys: pytest.CaptureFixture[str]) -> None:
    files = data_files(one_table.tables["t"])
    plan_file = one_table.plan_dir / "plan.json"
    original = plan_file.read_text()
    data = json.loads(original)
    data["tables"][0]["nodes"][0]["actions"].pop()
    plan_file.write_text(json.dumps(data, indent=2))
    assert one_table.cli("apply") == 1
    assert "changed after planning" in capsys.readouterr().err
    plan_file.write_text(original)
    payload = one_table.plan_dir / "payloads" / "t.clean.requested"
    payload.write_bytes(payload.read_bytes() + b"\0")
    assert one_table.cli("apply") == 1
    assert "was changed after planning" in capsys.readouterr().err
    assert data_files(one_table.tables["t"]) == files
    assert decoded_cleans(one_table.tables["t"]) == []


def test_a_payload_that_does_not_match_the_plan_body_is_refused(
    one_table: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    from maintainer.artifact.directory import PAYLOAD_HASHES_FIELD, read_plan, sha256_hex
    from maintainer.services.clean.payload import cleaner_plan_bytes

    plan_file = one_table.plan_dir / "plan.json"
    data = json.loads(plan_file.read_text())
    effect = read_plan(one_table.plan_dir).plan.nodes()[0].effect
    assert isinstance(effect, CleanEffect)
    smaller = cleaner_plan_bytes(effect, Storage(str(one_table.tables["t"])), data["plan_id"], [], [])
    (one_table.plan_dir / "payloads" / "t.clean.requested").write_bytes(smaller)
    data[PAYLOAD_HASHES_FIELD]["t.clean.requested"] = sha256_hex(smaller)  # hashes are outside the plan id
    plan_file.write_text(json.dumps(data, indent=2))
    files = data_files(one_table.tables["t"])
    assert one_table.cli("apply") == 1
    err = capsys.readouterr().err
    assert "refused before any node runs" in err
    assert "payload t.clean.requested" in err and "does not match what the node's body builds" in err
    assert data_files(one_table.tables["t"]) == files


def _savepoint(table: Path, commit: str) -> set[str]:
    loaded = open_table(str(table))
    view = loaded.view_as_of(commit)
    pinned: dict[str, tuple[str, ...]] = {
        p: tuple(f.name for s in view.latest_slices(p) for f in s.files) for p in view.partitions
    }
    metadata = SavepointMetadata(
        savepointed_by="ops", savepointed_at=0, comments="keep",
        partition_metadata={p: SavepointPartitionMetadata(partition_path=p, savepoint_data_file=n)
                            for p, n in pinned.items()},
    )  # fmt: skip
    writer = TimelineWriter(loaded.storage, loaded.snapshot.config)
    writer.complete(writer.create_inflight(Action.SAVEPOINT, instant_time=commit), encode_avro(metadata))
    return {f"{p}/{n}" for p, names in pinned.items() for n in names}


def test_a_savepoint_created_between_plan_and_apply_keeps_its_files(
    one_table: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    table = one_table.tables["t"]
    planned = one_table.planned("t")
    oldest = min(path.rsplit("_", 1)[-1].split(".")[0] for path in planned)
    kept = _savepoint(table, oldest) & planned
    assert kept
    before = data_files(table)
    assert one_table.cli("apply") == 2  # approved work skipped as drift: not a green run
    out = capsys.readouterr().out
    assert "drift" in out and "savepointed" in out
    deleted = len(planned - kept)
    assert f"Apply complete: {deleted} files deleted (" in out
    assert f"; {len(kept)} approved actions skipped as drift (t.clean: {len(kept)}; reasons above)." in out
    assert kept <= data_files(table)
    assert before - data_files(table) == planned - kept
    (node,) = one_table.run_results()["results"]
    assert {d["path"] for d in node["drift"]} == kept
    (clean,) = decoded_cleans(table)
    assert deleted_by(clean) == planned - kept


def lock_released(table: Path) -> bool:
    """The table lock is released as Hudi releases it: the object stays, marked expired."""
    record = read_lock(Storage(str(table)))
    return record is not None and record.data.expired


def test_a_second_concurrent_apply_fails_clearly(
    one_table: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    table = one_table.tables["t"]
    before = data_files(table)
    with TableLock(Storage(str(table)), "another-plan-running"):
        assert one_table.cli("apply") == 1
        captured = capsys.readouterr()
        assert "locked by another apply or writer" in captured.err and "another-pla" in captured.err
        assert "t.clean" not in captured.out  # refused before any node ran
        assert data_files(table) == before
    assert lock_released(table)
    assert one_table.cli("apply") == 0
    assert before - data_files(table) == one_table.planned("t")


def test_a_crash_after_the_inflight_clean_is_finished_by_the_next_apply(
    one_table: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = one_table.tables["t"]
    before = data_files(table)
    monkeypatch.setenv(FAULT_ENV, "clean:after_inflight")
    assert one_table.cli("apply") == 1
    assert "fault injected at clean:after_inflight" in capsys.readouterr().out
    (pending,) = open_table(str(table)).snapshot.timeline.pending_cleans()
    assert pending.state is State.INFLIGHT
    assert data_files(table) == before
    assert lock_released(table)
    monkeypatch.delenv(FAULT_ENV)
    assert one_table.cli("apply") == 0
    assert before - data_files(table) == one_table.planned("t")
    (clean,) = decoded_cleans(table)
    assert clean.instant_time == pending.timestamp and deleted_by(clean) == one_table.planned("t")
    assert not open_table(str(table)).snapshot.timeline.pending_cleans()
    assert one_table.cli("apply") == 0, "now it is applied: nothing to do, not an error"
    assert "Nothing to do: plan" in capsys.readouterr().out


def test_auto_approve_plans_and_applies_the_selection(
    make_project: Callable[..., Project], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lake = tmp_path / "lake"
    project = make_project({"a": datagen(lake, "a", 6, 8), "b": datagen(lake, "b", 8, 8)})
    before_b = data_files(project.tables["b"])
    assert project.cli("apply", "--auto-approve", "--select", "a") == 0
    assert "--auto-approve" in capsys.readouterr().out
    assert [t["name"] for t in project.plan_json()["tables"]] == ["a"]
    assert project.planned("a") and not (data_files(project.tables["a"]) & project.planned("a"))
    assert data_files(project.tables["b"]) == before_b
    assert project.cli("apply", "--select", "a") == 64
