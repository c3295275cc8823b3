from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from maintainer.project import load_project
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.settings import CompactionSpec
from maintainer.services.rollback.settings import RollbackSpec
from maintainer.services.savepoint.settings import SavepointsSpec
from tests.unit.project.projects import write_project

PROJECT = """\
name: demo
version: 1
profile: demo
vars:
  root: /lake
  retained: 12
defaults:
  tags: [managed]
  rollback: {min_age: 30m}
  clean: {commits_retained: "{{ var('retained') }}"}
  archive: {keep_min_commits: 25, keep_max_commits: 40}
"""

PROFILES = """\
demo:
  target: dev
  outputs:
    dev:
      spark: {master: "local[2]", conf: {spark.sql.shuffle.partitions: 4, spark.ui.enabled: false}}
      threads: 3
    prod:
      spark: {remote: "sc://connect:15002"}
      storage_options: {region: eu-west-1}
"""

FOLDER_DEFAULTS = """\
tags: [sales]
metadata_table: drop
clean: {incremental: false}
compaction:
  trigger: {strategy: num_or_time, max_delta_commits: 8}
"""

NESTED_DEFAULTS = "tags: [eu]\ncompaction:\n  trigger: {max_delta_seconds: 600}\n"

ORDERS = """\
version: 1
tables:
  - name: orders
    path: "{{ var('root') }}/{{ target.name }}/orders"
    tags: [core, sales]
    compaction:
      strategy: {name: day_based, target_partitions: 3}
    clean: {commits_retained: 14}
    savepoints:
      instants: [20250101000000000]
      rolling: {every: 12h, keep: 4}
  - name: refunds
    path: /lake/refunds
    depends_on: [orders]
    compaction: {enabled: false}
    archive: {enabled: false}
"""


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    return write_project(
        tmp_path,
        {
            "maintainer_project.yml": PROJECT,
            "profiles.yml": PROFILES,
            "tables/a.yml": None,
            "tables/sales/_defaults.yml": FOLDER_DEFAULTS,
            "tables/sales/eu/_defaults.yml": NESTED_DEFAULTS,
            "tables/sales/eu/orders.yml": ORDERS,
            "tables/other.yml": (
                "version: 1\ntables:\n  - {name: logs, path: /lake/logs, clean: {hours_retained: 48}}\n"
            ),
        },
    )


def test_inheritance_project_folder_table(project_dir: Path) -> None:
    project = load_project(project_dir)
    orders = project.table("orders")

    assert orders.path == "/lake/dev/orders"
    assert orders.tags == ("managed", "sales", "eu", "core")
    assert orders.metadata_table == "drop"
    rollback, clean = orders.settings_of(RollbackSpec), orders.settings_of(CleanSpec)
    assert rollback is not None and rollback.min_age == timedelta(minutes=30)
    assert clean is not None
    assert (clean.commits_retained, clean.incremental) == (14, False)
    compaction = orders.settings_of(CompactionSpec)
    assert compaction is not None
    trigger = compaction.trigger
    assert (trigger.strategy, trigger.max_delta_commits, trigger.max_delta_seconds) == ("num_or_time", 8, 600)
    assert (compaction.strategy.name, compaction.strategy.target_partitions) == ("day_based", 3)
    archive, savepoints = orders.settings_of(ArchiveSpec), orders.settings_of(SavepointsSpec)
    assert archive is not None and archive.keep_min_commits == 25
    assert savepoints is not None
    assert savepoints.instants == ("20250101000000000",)
    assert savepoints.rolling is not None and savepoints.rolling.every == timedelta(hours=12)
    assert orders.manifest == "tables/sales/eu/orders.yml"
    assert orders.line == 3


def test_enabled_false_and_absent_blocks_mean_no_service(project_dir: Path) -> None:
    project = load_project(project_dir)

    assert list(project.table("refunds").services()) == ["rollback", "clean"]
    assert list(project.table("logs").services()) == ["rollback", "clean", "archive"]
    assert project.table("logs").tags == ("managed",)


def test_hudi_defaults_and_policy_inference(project_dir: Path) -> None:
    logs = load_project(project_dir).table("logs")

    clean, rollback = logs.settings_of(CleanSpec), logs.settings_of(RollbackSpec)
    assert clean is not None
    assert clean.policy == "keep_latest_commits"  # commits_retained comes from the project defaults
    assert rollback is not None
    assert (rollback.failed_writes_policy, rollback.heartbeat_interval_ms) == ("eager", 60000)


def test_policy_is_inferred_from_the_only_retained_option(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {"tables/a.yml": "version: 1\ntables:\n  - {name: a, path: /a, clean: {hours_retained: 6}}\n"},
    )

    project = load_project(tmp_path)
    clean = project.table("a").settings_of(CleanSpec)

    assert clean is not None and (clean.policy, clean.hours_retained) == ("keep_latest_by_hours", 6)
    assert project.sources("a")["clean.policy"] == "inferred from tables/a.yml:3:49"


def test_sources_say_where_each_value_came_from(project_dir: Path) -> None:
    sources = load_project(project_dir).sources("orders")

    assert sources["clean.commits_retained"] == "tables/sales/eu/orders.yml:8:31"
    assert sources["clean.incremental"] == "tables/sales/_defaults.yml:3:22"
    assert sources["compaction.trigger.max_delta_seconds"] == "tables/sales/eu/_defaults.yml:3:32"
    assert sources["archive.keep_min_commits"] == "maintainer_project.yml:11:31"
    assert sources["rollback.heartbeat_interval_ms"] == "default"
    assert sources["metadata_table"] == "tables/sales/_defaults.yml:2:17"


def test_target_selection_vars_override_and_profile_settings(project_dir: Path) -> None:
    project = load_project(project_dir, target="prod", cli_vars={"root": "s3://bucket"})

    assert project.table("orders").path == "s3://bucket/prod/orders"
    assert project.target.name == "prod"
    assert project.target.settings.spark.remote == "sc://connect:15002"
    assert project.target.settings.spark.effective_master is None
    assert project.target.settings.storage_options == {"region": "eu-west-1"}
    dev = load_project(project_dir).target.settings
    assert dev.threads == 3
    assert dev.spark.effective_master == "local[2]"
    assert dev.spark.conf == {"spark.sql.shuffle.partitions": "4", "spark.ui.enabled": "false"}


def test_profiles_dir_env_var_wins(
    project_dir: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path_factory.mktemp("profiles")
    (elsewhere / "profiles.yml").write_text("demo:\n  target: ci\n  outputs:\n    ci: {threads: 1}\n")
    monkeypatch.setenv("MAINTAINER_PROFILES_DIR", str(elsewhere))

    project = load_project(project_dir)

    assert (project.target.name, project.target.settings.threads) == ("ci", 1)


def test_nothing_reads_the_tables(project_dir: Path) -> None:
    project = load_project(project_dir)

    assert not Path("/lake").exists()
    assert project.manifests == ("tables/other.yml", "tables/sales/eu/orders.yml")
    assert len(project.tables) == 3


def test_single_file_manifest_path_and_yaml_suffix(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "maintainer_project.yml": (
                "name: d\nversion: 1\nprofile: demo\nmanifest_paths: [one.yaml, tables]\n"
            ),
            "one.yaml": "version: 1\ntables:\n  - {name: solo, path: /solo}\n",
        },
    )

    project = load_project(tmp_path)

    assert [spec.name for spec in project.tables] == ["solo", "a"]


def test_a_manifest_reached_twice_is_loaded_once(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "maintainer_project.yml": (
                "name: d\nversion: 1\nprofile: demo\nmanifest_paths: [tables/a.yml, tables]\n"
            )
        },
    )

    assert [spec.name for spec in load_project(tmp_path).tables] == ["a"]


def test_project_vars_may_read_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAKE_ROOT_4711", "s3://env-lake")
    write_project(
        tmp_path,
        {
            "maintainer_project.yml": (
                "name: d\nversion: 1\nprofile: demo\nvars: {root: \"{{ env_var('LAKE_ROOT_4711') }}\"}\n"
            ),
            "tables/a.yml": "version: 1\ntables:\n  - {name: a, path: \"{{ var('root') }}/a\"}\n",
        },
    )

    assert load_project(tmp_path).table("a").path == "s3://env-lake/a"


def test_enabled_is_inherited_and_can_be_turned_back_on(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        {
            "tables/_defaults.yml": "archive: {enabled: false}\n",
            "tables/a.yml": (
                "version: 1\ntables:\n"
                "  - {name: a, path: /a, archive: {keep_max_commits: 50}}\n"
                "  - {name: b, path: /b, archive: {enabled: true}}\n"
            ),
        },
    )

    project = load_project(tmp_path)

    assert project.table("a").settings_of(ArchiveSpec) is None
    assert project.table("b").settings_of(ArchiveSpec) is not None
