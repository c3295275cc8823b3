"""Compaction through the CLI on copies of every merge-on-read fixture (Hudi-written, v6/v8/v9,
metadata tables dropped as ``metadata_table: drop`` says), all in one project: one ``plan``,
one ``apply``. After it, hudi (hudi-rs) reads the same snapshot, the same time travel to every
earlier instant, the read-optimized view equals the snapshot in every compacted file group,
and each new commit decodes with Hudi's own schema and carries the plan id."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any, cast

import fastavro
import pytest

from maintainer.cli import main
from maintainer.executors.faults import FAULT_ENV
from maintainer.hudi.instants.instant import Action, State
from maintainer.hudi.table.state import open_table
from maintainer.services.common.ledger import PLAN_ID_KEY
from tests.integration.services.test_compaction_run import COMMIT_SCHEMA, FILE_NAME, reads, without_comments
from tests.support import artifacts, oracle
from tests.support import fixtures as fx

pytestmark = [pytest.mark.spark, pytest.mark.fixtures]

MOR_FIXTURES = [n for n in fx.fixture_names() if "_mor_" in n and "lance" not in n]
SERVICES = (
    "rollback: {enabled: false}\n    clean: {enabled: false}\n    archive: {enabled: false}\n"
    "    compaction: {trigger: {max_delta_commits: 1}, strategy: {name: unbounded}}"
)


def project_of(tmp_path: Path, hudi_fixtures_root: Path) -> tuple[Path, dict[str, Path]]:
    tables: dict[str, Path] = {}
    for index, name in enumerate(MOR_FIXTURES):
        tables[f"mor{index:02d}"] = tmp_path / "lake" / f"mor{index:02d}"
        shutil.copytree(fx.unpack(name, hudi_fixtures_root).path, tables[f"mor{index:02d}"])
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    entries = "".join(
        f"  - name: {key}\n    path: {path}\n    metadata_table: drop\n    {SERVICES}\n"
        for key, path in sorted(tables.items())
    )
    (root / "tables" / "example.yml").write_text(f"version: 1\ntables:\n{entries}")
    return root, tables


def compaction_commit(path: Path, instant: str) -> dict[str, Any]:
    timeline = open_table(str(path)).snapshot.timeline
    entry = timeline.entry(instant, Action.COMPACTION)
    assert entry is not None and entry.instant.is_completed
    data = (path / timeline.file_path(entry.instant, State.COMPLETED)).read_bytes()
    if timeline.layout == 1:
        loaded: dict[str, Any] = json.loads(data)
        return loaded
    schema = fastavro.parse_schema(json.loads(without_comments(COMMIT_SCHEMA.read_text())))
    (record,) = list(fastavro.reader(io.BytesIO(data), reader_schema=schema))
    return cast(dict[str, Any], record)


def compacted_groups_read_optimized(path: Path, commit: dict[str, Any]) -> None:
    groups = {s["fileId"] for stats in commit["partitionToWriteStats"].values() for s in stats}
    snapshot = [r for r in oracle.snapshot_rows(path) if r[FILE_NAME].split("_", 1)[0] in groups]
    optimized = oracle.snapshot_rows(path, read_optimized=True)
    assert [r for r in optimized if r[FILE_NAME].split("_", 1)[0] in groups] == snapshot


def has_logs(path: Path) -> bool:
    return any(s.log_files for s in open_table(str(path)).view.latest_slices())


def test_every_mor_fixture_is_compacted_through_the_cli(
    tmp_path: Path, hudi_fixtures_root: Path, monkeypatch: pytest.MonkeyPatch, spark: Any
) -> None:
    for variable in ("MAINTAINER_PROJECT_DIR", "MAINTAINER_PROFILES_DIR", FAULT_ENV):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root, tables = project_of(tmp_path, hudi_fixtures_root)
    before = {key: reads(path) for key, path in tables.items()}
    with_logs = {key for key, path in tables.items() if has_logs(path)}

    assert main(["plan", "--project-dir", str(root)]) == 0
    plan = artifacts.plan_json(root / "target" / "plan")
    assert main(["apply", "--project-dir", str(root), "--threads", "2"]) == 0
    results = {n["node"]: n for n in artifacts.run_results(root / "target")["results"]}

    compacted = set()
    for key, path in tables.items():
        after = reads(path)
        assert after["snapshot"] == before[key]["snapshot"], key
        assert all(after[instant] == rows for instant, rows in before[key].items()), key
        for instant in results[f"{key}.compaction"]["adapter_response"].get("compactions", []):
            commit = compaction_commit(path, instant)
            assert commit["compacted"] is True and commit["operationType"] == "COMPACT", key
            assert commit["extraMetadata"][PLAN_ID_KEY] == plan["plan_id"], key
            compacted_groups_read_optimized(path, commit)
            compacted.add(key)
    assert compacted == with_logs, "every table whose latest slices have log files"
    assert not any(has_logs(path) for path in tables.values())
