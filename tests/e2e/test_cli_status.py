"""``maintainer status`` through the CLI: every format on real Hudi tables, the why-not reasons
equal to the plan's, objectives overdue (each one, and a stuck pending compaction), a metadata
table behind, an unreadable table, selection by owner, and the exit codes a scheduled job
alerts on."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from maintainer.cli import main
from maintainer.commands import status_cmd
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.health.formats import METRICS
from tests.support.artifacts import plan_json, validated_json
from tests.support.compaction import schedule_compaction
from tests.support.fixtures import FixtureTable
from tests.support.metadata_growth import add_empty_deltacommits

pytestmark = pytest.mark.fixtures

MOR_V6 = "sample_table_mor_parquet_v6_simplekeygen_nonhivestyle"
MOR_V8 = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"
COW_V9 = "sample_table_cow_v9_txns_simple_meta"
COW_V6 = "sample_table_cow_v6_simplekeygen_nonhivestyle"
MOR_V6_LOGS = "sample_table_mor_parquet_v6_nonpartitioned_rollback"  # 3 log files in a slice, 3 instants
EXIT_OK, EXIT_UNREADABLE, EXIT_OVERDUE = 0, 3, 4


@pytest.fixture
def lake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixture_copy: Callable[[str], FixtureTable]
) -> Callable[[dict[str, str]], Path]:
    """``write({name: extra yaml})``: a project whose manifest lists a private copy of each named
    fixture (as table ``<name>``, with the extra lines); returns the project directory."""
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    copies: dict[str, FixtureTable] = {}

    def write(tables: dict[str, str]) -> Path:
        lines = ["version: 1", "tables:"]
        for name, extra in tables.items():
            table = copies.get(name) or copies.setdefault(name, fixture_copy(name))
            lines += [f"  - name: {name}", f"    path: {table.path}"]
            lines += [f"    {line}" for line in extra.splitlines()]
        (root / "tables" / "example.yml").write_text("\n".join(lines) + "\n")
        return root

    monkeypatch.chdir(tmp_path)
    return write


def status(root: Path, *args: str) -> int:
    return main(["status", "--project-dir", str(root), *args])


def status_json(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    out = root.parent / "status.json"
    code = status(root, "--format", "json", "--out", str(out), *args)
    capsys.readouterr()
    return code, validated_json(out, "status.v1.json")


def by_table(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["table"]: t for t in data["tables"]}


def later(monkeypatch: pytest.MonkeyPatch, hours: float) -> None:
    """``status`` runs ``hours`` from now (instants written by the test are that old)."""
    moment = datetime.now(UTC) + timedelta(hours=hours)
    monkeypatch.setattr(status_cmd, "utc_now", lambda: moment)


def test_every_format_on_real_tables_without_objectives_exits_0(
    lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = lake({MOR_V6: "owner: ingest", MOR_V8: "owner: ingest", COW_V9: "owner: finance", COW_V6: ""})
    assert status(root) == EXIT_OK
    text = capsys.readouterr().out
    assert all(name in text for name in (MOR_V6, MOR_V8, COW_V9, COW_V6))
    assert "4 tables: 0 overdue, 0 unreadable, 4 ok." in text

    code, data = status_json(root, capsys)
    assert code == EXIT_OK
    assert {t["table"] for t in data["tables"]} == {MOR_V6, MOR_V8, COW_V9, COW_V6}
    assert by_table(data)[MOR_V8]["owner"] == "ingest"
    assert by_table(data)[MOR_V8]["metadata_table"]["partitions"]
    assert by_table(data)[MOR_V6]["log_backlog"]["log_files"] > 0

    assert status(root, "--format", "markdown") == EXIT_OK
    markdown = capsys.readouterr().out
    assert markdown.startswith("## Fleet health: project (dev)")
    fleet_table = markdown.split("\n\n")[2].splitlines()
    assert len(fleet_table) == 2 + 4  # header, separator, a row per table
    assert "### By owner" in markdown

    assert status(root, "--format", "openmetrics") == EXIT_OK
    parsed = text_string_to_metric_families(capsys.readouterr().out)  # type: ignore[no-untyped-call]
    families = {f.name: f for f in parsed}
    assert set(families) == {name for name, _, _ in METRICS}
    scores = families["maintainer_table_health_score"].samples
    assert sorted(s.labels["table"] for s in scores) == sorted([MOR_V6, MOR_V8, COW_V9, COW_V6])
    assert {s.labels["owner"] for s in scores} == {"ingest", "finance", ""}


def test_why_not_is_the_plans_own_reason_for_each_node(
    lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = lake({MOR_V6: "", MOR_V8: "", COW_V9: ""})
    assert main(["plan", "--project-dir", str(root)]) == 0
    planned = plan_json(root / "target" / "plan")
    _, data = status_json(root, capsys)
    for table in planned["tables"]:
        expected = [
            (n["service"], n["status"], n["reasons"][0] if n["reasons"] else "") for n in table["nodes"]
        ]
        got = [(w["service"], w["status"], w["reason"]) for w in by_table(data)[table["name"]]["why_not"]]
        assert got == expected, table["name"]


def test_a_stuck_pending_compaction_is_overdue_and_named(
    lake: Callable[[dict[str, str]], Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = lake({MOR_V6: "slo:\n  max_pending_age: 6h", COW_V6: "slo:\n  max_pending_age: 6h"})
    instant = schedule_compaction(Path(by_path(root)[MOR_V6]))
    later(monkeypatch, hours=9)
    assert status(root) == EXIT_OVERDUE
    text = capsys.readouterr().out
    assert f"stuck: {instant}.compaction (9h" in text
    assert "overdue: max_pending_age 9h" in text
    code, data = status_json(root, capsys)
    assert code == EXIT_OVERDUE
    table = by_table(data)[MOR_V6]
    assert [(p["instant"], p["stuck"]) for p in table["pending"]] == [(instant, True)]
    assert [(o["name"], o["state"]) for o in table["objectives"]] == [("max_pending_age", "overdue")]
    assert data["tables"][0]["table"] == MOR_V6  # worst first
    assert by_table(data)[COW_V6]["objectives"][0]["state"] == "ok"


def by_path(root: Path) -> dict[str, str]:
    text = (root / "tables" / "example.yml").read_text().splitlines()
    names = [line.split(": ", 1)[1] for line in text if line.startswith("  - name: ")]
    paths = [line.split(": ", 1)[1] for line in text if line.startswith("    path: ")]
    return dict(zip(names, paths, strict=True))


def test_each_objective_can_be_overdue(
    lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    slo = (
        "slo:\n  max_log_files_per_slice: 1\n  max_small_file_share: 0.1\n  max_active_instants: 2\n"
        "  max_since_clean: 1d\n  max_pending_age: 1h"
    )
    root = lake({MOR_V6_LOGS: slo})
    code, data = status_json(root, capsys)
    assert code == EXIT_OVERDUE
    states = {o["name"]: o["state"] for o in by_table(data)[MOR_V6_LOGS]["objectives"]}
    assert states == {
        "max_pending_age": "ok",
        "max_log_files_per_slice": "overdue",
        "max_small_file_share": "overdue",
        "max_active_instants": "overdue",
        "max_since_clean": "overdue",
    }
    parts = {p["name"]: p for p in by_table(data)[MOR_V6_LOGS]["score_parts"]}
    assert parts["pending"]["points"] == 20 and parts["small_files"]["points"] == 0
    assert by_table(data)[MOR_V6_LOGS]["score"] == sum(p["points"] for p in parts.values())


def test_a_metadata_table_behind_shows_its_deltacommits_as_the_plan_counts_them(
    lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = lake({COW_V9: ""})
    add_empty_deltacommits(Path(by_path(root)[COW_V9]), 3)
    _, data = status_json(root, capsys)
    metadata = by_table(data)[COW_V9]["metadata_table"]
    assert metadata["in_sync"] is True
    assert main(["plan", "--project-dir", str(root)]) == 0
    (table,) = plan_json(root / "target" / "plan")["tables"]
    effect = next(n for n in table["nodes"] if n["service"] == "metadata")["effect"]
    assert metadata["deltacommits_since_compaction"] == effect["deltacommits_since_compaction"]
    assert metadata["last_compaction"] == (effect["last_compaction"] or None)


def test_an_unreadable_table_exits_3_and_says_why(
    lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = lake({COW_V6: ""})
    manifest = root / "tables" / "example.yml"
    missing = tmp_path / "nowhere"
    manifest.write_text(manifest.read_text() + f"  - name: gone\n    path: {missing}\n")
    assert status(root) == EXIT_UNREADABLE
    text = capsys.readouterr().out
    assert "gone" in text and "unreadable" in text and "cannot be read" in text
    _, data = status_json(root, capsys)
    assert data["tables"][0]["table"] == "gone" and data["tables"][0]["error"]


def test_select_by_owner(lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str]) -> None:
    root = lake({MOR_V6: "owner: ingest", COW_V6: "owner: finance"})
    _, data = status_json(root, capsys, "--select", "owner:finance")
    assert [t["table"] for t in data["tables"]] == [COW_V6]
    code, data = status_json(root, capsys, "--select", "owner:nobody")
    assert code == EXIT_OK and data["tables"] == []


def generated(kind: str, path: Path, commits: int) -> Path:
    workload = WorkloadSpec(partitions=2, file_groups=2, commits=commits, rows_per_commit=10, seed=commits)
    generate(str(path), DatagenSpec("t", kind, 8, workload))
    return path


def test_apply_records_what_it_changed_and_status_history_shows_it(
    bare_project: Callable[[Path, str], Path],
    tmp_path: Path,
    sessions: list[object],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A MOR table with log files behind: apply (engine local: compaction in-process, then the
    clean) says per table what moved, records it, and ``status --history`` gives it back."""
    table = generated("mor", tmp_path / "lake" / "t", commits=5)
    services = (
        "compaction: {trigger: {max_delta_commits: 1}}\n"
        "clean: {policy: keep_latest_file_versions, file_versions_retained: 1}\narchive: {enabled: false}"
    )
    root = bare_project(table, services)
    profiles = root / "profiles.yml"
    profiles.write_text(profiles.read_text().replace("engine: auto", "engine: local"))
    _, before = status_json(root, capsys)
    logs_before = by_table(before)["t"]["log_backlog"]["max_log_files_per_slice"]
    assert logs_before > 0
    assert main(["plan", "--project-dir", str(root)]) == 0
    capsys.readouterr()
    assert main(["apply", "--project-dir", str(root)]) == 0
    said = capsys.readouterr()
    assert f"t: log files per slice {logs_before} -> 0" in said.out + said.err
    assert sessions == []
    code, data = status_json(root, capsys, "--history")
    assert code == EXIT_OK
    (entry,) = by_table(data)["t"]["history"]
    assert entry["before"]["max_log_files_per_slice"] == logs_before
    assert entry["after"]["max_log_files_per_slice"] == 0
    assert entry["after"]["log_files"] == by_table(data)["t"]["log_backlog"]["log_files"] == 0
    assert by_table(data)["t"]["history"][0]["plan_id"]
    assert status(root, "--history") == EXIT_OK
    assert "log files per slice" in capsys.readouterr().out


def test_html_renders_in_a_real_browser(
    lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The page opened in headless Chromium (Debian's package, installed by .ci/bootstrap): the
    fleet table's rows, the charts the page draws; a screenshot kept under target/."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no chromium on this machine (.ci/bootstrap installs Debian's chromium package)")
    root = lake(
        {MOR_V6: "owner: ingest\nslo:\n  max_since_clean: 1d", COW_V9: "owner: '<b>x</b>'", COW_V6: ""}
    )
    page = tmp_path / "status.html"
    assert status(root, "--format", "html", "--out", str(page)) == EXIT_OVERDUE
    capsys.readouterr()
    html = page.read_text()
    assert not any(ref in html for ref in ("src=", "href=", "<link", "@import", "url(")), "loads nothing"
    dom = _chromium(browser, "--dump-dom", page)
    assert 'data-rendered="yes"' in dom
    rows = dom.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    assert rows.count("<tr") == 3 and all(name in rows for name in (MOR_V6, COW_V9, COW_V6))
    assert "&lt;b&gt;x&lt;/b&gt;" in rows and "<b>x</b>" not in rows
    for chart in ("chart-logs", "chart-small", "chart-score"):
        drawn = dom.split(f'id="{chart}"', 1)[1].split("</svg>", 1)[0]
        assert drawn.count("<rect") == 3, chart
    screenshot = Path(__file__).parents[2] / "target" / "status.png"
    screenshot.parent.mkdir(exist_ok=True)
    _chromium(browser, f"--screenshot={screenshot}", page, "--window-size=1400,1100")
    assert screenshot.stat().st_size > 10_000


def _chromium(browser: str, action: str, page: Path, *extra: str) -> str:
    command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", *extra, action]
    done = subprocess.run([*command, page.as_uri()], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def test_discover_flags_tables_no_manifest_covers(
    lake: Callable[[dict[str, str]], Path],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fixture_table: Callable[[str], FixtureTable],
) -> None:
    root = lake({COW_V6: ""})
    covered = Path(by_path(root)[COW_V6])
    stray = tmp_path / "strays" / "forgotten"
    shutil.copytree(fixture_table(MOR_V6).path, stray)
    code, data = status_json(root, capsys, "--discover", str(covered.parent), "--discover", str(stray.parent))
    assert code == EXIT_OK  # not an objective
    assert data["uncovered"] == [str(stray)]
    assert status(root, "--discover", str(stray.parent), "--format", "openmetrics") == EXIT_OK
    assert "maintainer_uncovered_tables 1" in capsys.readouterr().out
    assert status(root, "--discover", str(stray.parent)) == EXIT_OK
    assert f"Hudi tables no manifest covers (1):\n  {stray}" in capsys.readouterr().out


def test_tables_are_grouped_by_owner(
    lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    slo = "slo:\n  max_small_file_share: 0.1"
    root = lake({MOR_V6: f"owner: ingest\n{slo}", MOR_V8: "owner: ingest", COW_V6: "owner: finance"})
    code, data = status_json(root, capsys)
    assert code == EXIT_OVERDUE
    owners = [(o["owner"], o["tables"], o["overdue"]) for o in data["owners"]]
    assert owners == [("ingest", 2, 1), ("finance", 1, 0)]
    assert status(root, "--format", "markdown") == EXIT_OVERDUE
    assert "| ingest | 2 | 1 | 0 |" in capsys.readouterr().out


def test_orphan_files_are_counted_and_inspect_lists_them(
    lake: Callable[[dict[str, str]], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root = lake({COW_V9: "", COW_V6: ""})
    table = Path(by_path(root)[COW_V9])
    base = next(p for p in table.rglob("*.parquet") if ".hoodie" not in p.parts)
    file_id, _, rest = base.name.split("_", 2)
    stray = base.with_name(f"{file_id}_9-9-9_{rest}")
    shutil.copy(base, stray)
    old = time.time() - 10 * 86400
    os.utime(stray, (old, old))
    _, data = status_json(root, capsys)
    assert by_table(data)[COW_V9]["orphans"] == {"files": 1, "bytes": stray.stat().st_size, "left_alone": 0}
    assert by_table(data)[COW_V6]["orphans"]["files"] == 0
    assert main(["inspect", str(table), "--format", "json"]) == 0
    orphans = json.loads(capsys.readouterr().out)["orphans"]
    assert [(Path(o["path"]).name, o["kind"]) for o in orphans["list"]] == [
        (stray.name, "not_in_write_stats")
    ]
    assert main(["inspect", str(table)]) == 0
    assert "orphan files: 1" in capsys.readouterr().out
    assert main(["inspect", str(table), "--orphan-min-age", "30d", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["orphans"]["files"] == 0
