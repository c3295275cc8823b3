"""The plan builder: nodes per table, blocked tables and services, the metadata table, a
pending clean, fingerprints and payloads (carrying the plan id), determinism."""

from __future__ import annotations

import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from maintainer.artifact.model import CleanEffect, DeleteFile, NodePlan, NodeStatus
from maintainer.graph import NodeId
from maintainer.hudi import payloads
from maintainer.hudi.file_groups.integrity import CorruptTableError, Finding
from maintainer.hudi.instants.instant import Action
from maintainer.hudi.instants.writer import TimelineWriter
from maintainer.hudi.payloads import CleanerPlan, CleanFileInfo, encode_avro
from maintainer.hudi.table.snapshot import load_config, load_timeline
from maintainer.planning import builder
from maintainer.planning.builder import BuiltPlan, TableRequest, build_plan, requests_from_nodes
from maintainer.project.models import TableSpec
from maintainer.services import registry
from maintainer.services.clean.payload import node_cleaner_plan_bytes
from maintainer.services.clean.service import CleanService
from maintainer.services.clean.settings import CleanSpec
from maintainer.storage import Storage
from tests.integration.plan import cleantables as ct

NOW = datetime.now(timezone.utc)


def spec(name: str, path: str | Path, metadata_table: str = "refuse") -> TableSpec:
    return TableSpec.of(
        name=name,
        path=str(path),
        manifest="t.yml",
        line=1,
        metadata_table=metadata_table,
        clean=CleanSpec(commits_retained=3),
    )


def build(*requests: TableRequest) -> BuiltPlan:
    return build_plan("proj", "dev", requests, {}, NOW, threads=2)


def node(built: BuiltPlan, table: str, service: str) -> NodePlan:
    found = [n for t in built.plan.tables for n in t.nodes if n.id == f"{table}.{service}"]
    assert len(found) == 1
    return found[0]


@pytest.fixture(scope="module")
def cow(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(
        ct.make_table(tmp_path_factory.mktemp("cow"), "cow", 6, commits=8, partitions=2, rows=20).path
    )


def test_requests_group_selected_nodes_by_table_in_order() -> None:
    specs = {"b": spec("b", "/b"), "a": spec("a", "/a")}
    nodes = [NodeId("a", "rollback"), NodeId("a", "compaction"), NodeId("b", "clean"), NodeId("a", "clean")]
    requests = requests_from_nodes(specs, nodes, [NodeId("a", "compaction")])
    assert [(r.spec.name, r.services, r.mor_only) for r in requests] == [
        ("a", ("rollback", "compaction", "clean"), frozenset({"compaction"})),
        ("b", ("clean",), frozenset()),
    ]


@pytest.fixture
def rollback_unsupported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(registry.BY_NAME, "rollback", raising=False)


@pytest.mark.usefixtures("rollback_unsupported")
def test_service_without_a_planner_is_blocked_and_says_so(cow: Path) -> None:
    built = build(TableRequest(spec("t", cow), ("rollback", "clean")))
    rollback = node(built, "t", "rollback")
    assert rollback.status is NodeStatus.BLOCKED
    assert rollback.reasons == ("rollback is not supported by this version of maintainer yet",)
    assert node(built, "t", "clean").status is NodeStatus.CHANGES


def test_mor_only_service_is_dropped_for_a_copy_on_write_table(cow: Path) -> None:
    built = build(TableRequest(spec("t", cow), ("compaction", "clean"), frozenset({"compaction"})))
    assert [n.service for n in built.plan.tables[0].nodes] == ["clean"]


def test_unreadable_table_blocks_its_nodes_and_the_others_are_planned(cow: Path, tmp_path: Path) -> None:
    built = build(
        TableRequest(spec("bad", tmp_path / "nothing"), ("clean",)), TableRequest(spec("t", cow), ("clean",))
    )
    bad = node(built, "bad", "clean")
    assert bad.status is NodeStatus.BLOCKED
    assert "not a Hudi table" in bad.reasons[0]
    assert len(built.errors) == 1 and "bad" in built.errors[0]
    assert node(built, "t", "clean").status is NodeStatus.CHANGES
    assert built.plan.tables[0].table_type == "unknown"


def with_metadata_table(source: Path, into: Path) -> Path:
    copy = into / "with_mdt"
    shutil.copytree(source, copy)
    mdt = copy / ".hoodie" / "metadata" / ".hoodie"
    mdt.mkdir(parents=True)
    shutil.copy(copy / ".hoodie" / "hoodie.properties", mdt / "hoodie.properties")
    return copy


def test_metadata_table_blocks_the_table_unless_the_manifest_drops_it(cow: Path, tmp_path: Path) -> None:
    path = with_metadata_table(cow, tmp_path)
    blocked = node(build(TableRequest(spec("m", path), ("clean",))), "m", "clean")
    assert blocked.status is NodeStatus.BLOCKED
    assert "metadata table" in blocked.reasons[0] and "metadata_table: drop" in blocked.reasons[0]

    dropped = node(build(TableRequest(spec("m", path, "drop"), ("clean",))), "m", "clean")
    assert dropped.status is NodeStatus.CHANGES
    assert dropped.actions[0].kind == "drop_metadata_table"
    assert dropped.actions[0].target == ".hoodie/metadata"
    assert {a.kind for a in dropped.actions[1:]} == {"delete_file"}


def test_metadata_table_drop_goes_on_the_first_node_that_runs(cow: Path, tmp_path: Path) -> None:
    path = with_metadata_table(cow, tmp_path)
    built = build(TableRequest(spec("m", path, "drop"), ("rollback", "clean", "archive")))
    rollback, clean, archive = built.plan.tables[0].nodes
    assert rollback.status is NodeStatus.CHANGES
    assert [a.kind for a in rollback.actions] == ["drop_metadata_table"]
    assert "drop_metadata_table" not in {a.kind for a in clean.actions + archive.actions}


@pytest.mark.usefixtures("rollback_unsupported")
def test_metadata_table_drop_skips_blocked_nodes(cow: Path, tmp_path: Path) -> None:
    path = with_metadata_table(cow, tmp_path)
    rollback, clean = build(TableRequest(spec("m", path, "drop"), ("rollback", "clean"))).plan.tables[0].nodes
    assert rollback.status is NodeStatus.BLOCKED
    assert clean.actions[0].kind == "drop_metadata_table"


def test_metadata_table_drop_blocks_the_table_when_the_first_node_cannot_drop(
    cow: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(builder, "drops_metadata_table", lambda service: service == "clean")
    path = with_metadata_table(cow, tmp_path)
    built = build(TableRequest(spec("m", path, "drop"), ("archive", "clean")))
    for planned in built.plan.tables[0].nodes:
        assert planned.status is NodeStatus.BLOCKED
        assert "m.archive, the first node to run on the table, cannot drop it" in planned.reasons[0]


def test_clean_node_actions_effect_and_payload(cow: Path) -> None:
    built = build(TableRequest(spec("t", cow), ("clean",)))
    clean = node(built, "t", "clean")
    files = clean.actions_of(DeleteFile)
    effect = clean.effect
    assert isinstance(effect, CleanEffect)
    assert [a.target for a in clean.actions] == sorted(f.target for f in files)
    assert all(isinstance(a, DeleteFile) and a.reason for a in clean.actions)
    assert effect.files == len(files) > 0
    assert effect.bytes == sum(f.size for f in files)
    assert effect.earliest_commit_to_retain == ct.expected_ectr(cow, 3)
    assert effect.scan == "full" and effect.policy == "KEEP_LATEST_COMMITS"
    assert clean.payloads == ("t.clean.requested",)
    data = built.payloads["t.clean.requested"]
    assert data == node_cleaner_plan_bytes(clean, Storage(str(cow)), built.plan_id)
    decoded = payloads.decode_cleaner_plan(data, "t.clean.requested")
    assert decoded is not None and decoded.version == 2
    assert decoded.earliest_instant_to_retain is not None
    assert decoded.earliest_instant_to_retain.timestamp == effect.earliest_commit_to_retain
    assert decoded.extra_metadata == {"maintainer.plan_id": built.plan_id}


def test_nothing_to_clean_is_no_op_without_payload(tmp_path: Path) -> None:
    path = ct.make_table(tmp_path, "cow", 8, commits=3, partitions=1, rows=5).path
    clean = node(build(TableRequest(spec("t", path), ("clean",))), "t", "clean")
    assert clean.status is NodeStatus.NO_OP
    assert clean.actions == () and clean.payloads == ()
    assert any("not more than the 3 retained" in r for r in clean.reasons)


def test_pending_clean_is_finished_first_and_its_files_are_left_to_it(cow: Path, tmp_path: Path) -> None:
    copy = tmp_path / "pending"
    shutil.copytree(cow, copy)
    first = node(build(TableRequest(spec("t", copy), ("clean",))), "t", "clean")
    taken = first.actions_of(DeleteFile)[0].target
    storage = Storage(str(copy))
    partition = taken.rsplit("/", 1)[0]
    plan = CleanerPlan(
        policy="KEEP_LATEST_COMMITS",
        files_to_be_deleted_per_partition={},
        file_paths_to_be_deleted_per_partition={partition: (CleanFileInfo(file_path=storage.uri(taken)),)},
    )
    requested = TimelineWriter(storage, load_config(storage)).create_requested(
        Action.CLEAN, encode_avro(plan)
    )
    second = node(build(TableRequest(spec("t", copy), ("clean",))), "t", "clean")
    assert second.actions[0].kind == "finish_pending_clean"
    assert second.actions[0].target == requested.timestamp
    assert taken not in {f.target for f in second.actions_of(DeleteFile)}
    assert len(second.actions_of(DeleteFile)) == len(first.actions_of(DeleteFile)) - 1


def test_fingerprint_records_instants_savepoints_and_properties(cow: Path) -> None:
    table = build(TableRequest(spec("t", cow), ("clean",))).plan.tables[0]
    assert len(table.fingerprint.instants) == len(ct.completed_commits(cow))
    assert all(i.endswith(".commit.COMPLETED") for i in table.fingerprint.instants)
    assert table.fingerprint.savepoints == ()
    assert len(table.fingerprint.properties_checksum) == 64


def test_same_state_gives_the_same_plan_and_payloads(cow: Path) -> None:
    first = build(TableRequest(spec("t", cow), ("clean",)))
    second = build(TableRequest(spec("t", cow), ("clean",)))
    assert first.plan == second.plan
    assert first.plan_id == second.plan_id
    assert first.payloads == second.payloads


def test_registry_resolves_the_clean_executor_and_knows_no_unregistered_service() -> None:
    clean = registry.service_for("clean")
    assert clean is not None and callable(clean.apply)
    assert registry.service_for("no_such_service") is None
    assert registry.unsupported_reason("x") == "x is not supported by this version of maintainer yet"


def test_damage_a_planner_finds_blocks_every_node_of_the_table(
    cow: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CorruptTableError from one planner (e.g. the compaction reading a base file without
    footer) is not one blocked node: every node of the table is blocked, naming the file."""
    finding = Finding("p/f.parquet", "base file does not end with the Parquet magic PAR1", "restore it")

    class Damaged(CleanService):
        def plan_prepared(
            self, table: object, spec: TableSpec, now: datetime, worked_out: object
        ) -> NodePlan:
            raise CorruptTableError([finding], str(cow))

    monkeypatch.setitem(registry.BY_NAME, "clean", Damaged())
    built = build(TableRequest(spec("t", cow), ("rollback", "clean", "archive")))
    for service in ("rollback", "clean", "archive"):
        blocked = node(built, "t", service)
        assert blocked.status is NodeStatus.BLOCKED and not blocked.actions
        assert "p/f.parquet: base file does not end with the Parquet magic PAR1" in blocked.reasons[0]
    assert len(built.errors) == 1


def test_a_truncated_commit_blocks_every_node_of_the_table(cow: Path, tmp_path: Path) -> None:
    table = tmp_path / "t"
    shutil.copytree(cow, table)
    storage = Storage(str(table))
    timeline = load_timeline(storage, load_config(storage))
    relative = timeline.file_path(timeline.completed_commits()[1])
    data = (table / relative).read_bytes()
    (table / relative).write_bytes(data[: len(data) // 2])
    built = build(TableRequest(spec("t", table), ("rollback", "clean", "archive")))
    for service in ("rollback", "clean", "archive"):
        blocked = node(built, "t", service)
        assert blocked.status is NodeStatus.BLOCKED and not blocked.actions
        assert (
            f"{relative}: the commit instant" in blocked.reasons[0]
            and "does not decode" in blocked.reasons[0]
        )


def test_a_secret_quoted_by_a_storage_error_is_masked_in_the_blocked_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maintainer.errors import StorageError

    monkeypatch.setenv("MAINTAINER_SECRET_S3", "s3-secret-value")

    def refuse(storage: Storage) -> None:
        raise StorageError("access denied for https://k:s3-secret-value@s3.example")

    monkeypatch.setattr(builder, "load_config", refuse)
    built = build(TableRequest(spec("t", tmp_path / "t"), ("clean",)))
    (reason,) = node(built, "t", "clean").reasons
    assert "cannot be read: access denied for https://k:*****@s3.example" in reason
    assert "s3-secret-value" not in str(built.body) and "s3-secret-value" not in "".join(built.errors)


def test_a_secret_quoted_by_a_planner_error_is_masked_in_the_blocked_reason(
    cow: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from maintainer.errors import StorageError

    monkeypatch.setenv("MAINTAINER_SECRET_S3", "s3-secret-value")

    def refuse(*args: object) -> None:
        raise StorageError("listing https://k:s3-secret-value@s3.example failed")

    monkeypatch.setattr(CleanService, "plan_prepared", refuse)
    built = build(TableRequest(spec("t", cow), ("clean",)))
    (reason,) = node(built, "t", "clean").reasons
    assert reason == "listing https://k:*****@s3.example failed"
