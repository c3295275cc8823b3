"""``maintainer discover`` through the CLI on a local lake: nested tables at several depths,
non-Hudi folders, a table's own folders never entered, a prefix inside a table refused, the
tables no manifest covers, and ``--write`` whose entries the project then loads and plans."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from maintainer.cli import main
from tests.support.fixtures import FixtureTable

pytestmark = pytest.mark.fixtures

COW = "sample_table_cow_v6_simplekeygen_nonhivestyle"
MOR = "sample_table_mor_parquet_v6_simplekeygen_nonhivestyle"
V9 = "sample_table_cow_v9_txns_simple_meta"


@pytest.fixture
def lake(tmp_path: Path, fixture_table: Callable[[str], FixtureTable]) -> Path:
    """lake/sales/orders (COW v6), lake/sales/eu/returns (MOR v6), lake/ops/2026/events (v9 with
    a metadata table), lake/raw/... (plain files and folders), lake/_tmp/hidden (a table under a
    hidden folder: not listed)."""
    root = tmp_path / "lake"
    for name, where in ((COW, "sales/orders"), (MOR, "sales/eu/returns"), (V9, "ops/2026/events"),
                        (COW, "_tmp/hidden")):  # fmt: skip
        shutil.copytree(fixture_table(name).path, root / where)
    (root / "raw" / "csv" / "2026").mkdir(parents=True)
    (root / "raw" / "csv" / "2026" / "a.csv").write_text("x\n")
    (root / "raw" / "README").write_text("not a table\n")
    return root


def project_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tables: dict[str, Path]) -> Path:
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    assert main(["init", str(root)]) == 0
    lines = ["version: 1", "tables:"] + [f"  - name: {n}\n    path: {p}" for n, p in tables.items()]
    (root / "tables" / "example.yml").write_text("\n".join(lines) + "\n")
    return root


def found(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["discover", *args, "--format", "json"])
    out = capsys.readouterr().out
    return code, json.loads(out[: out.rindex("}") + 1])


def test_finds_every_table_never_inside_one_and_skips_the_rest(
    lake: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = found(capsys, str(lake))
    assert code == 0
    tables = data["tables"]
    assert isinstance(tables, list)
    assert [t["relative"] for t in tables] == ["ops/2026/events", "sales/eu/returns", "sales/orders"]
    kinds = {t["relative"]: (t["table_type"], t["version"]) for t in tables}
    assert kinds == {
        "ops/2026/events": ("COPY_ON_WRITE", 9),
        "sales/eu/returns": ("MERGE_ON_READ", 6),
        "sales/orders": ("COPY_ON_WRITE", 6),
    }
    assert not any(".hoodie" in t["path"] for t in tables)  # the v9 metadata table is not a table of the lake
    assert data["truncated"] is None


def test_a_prefix_inside_a_table_is_refused(lake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    partition = next(p for p in (lake / "sales" / "orders").iterdir() if p.is_dir() and p.name != ".hoodie")
    assert main(["discover", str(partition)]) == 1
    err = capsys.readouterr().err
    assert f"is inside the Hudi table at {lake / 'sales' / 'orders'}" in err
    assert f"discover {lake / 'sales' / 'orders'} itself" in err


def test_depth_and_folder_limits_say_where_they_stopped(
    lake: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, data = found(capsys, str(lake), "--max-depth", "1")
    assert [t["relative"] for t in data["tables"]] == ["sales/orders"]
    assert "deeper than 1 levels" in str(data["truncated"])
    _, data = found(capsys, str(lake), "--max-folders", "2")
    assert "stopped after" in str(data["truncated"])


def test_uncovered_tables_and_written_entries_the_project_plans(
    lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project_with(tmp_path, monkeypatch, {"orders": lake / "sales" / "orders"})
    capsys.readouterr()
    assert main(["discover", str(lake), "--project-dir", str(root), "--detailed-exitcode"]) == 2
    out = capsys.readouterr().out
    assert "manifest table orders" in out
    assert out.count("NOT IN ANY MANIFEST") == 2
    target = root / "tables" / "discovered.yml"
    assert main(["discover", str(lake), "--project-dir", str(root), "--write", str(target)]) == 0
    assert "wrote 2 entries" in capsys.readouterr().out
    text = target.read_text()
    assert "tags: [discovered]" in text and "MERGE_ON_READ, table version 6" in text
    assert main(["ls", "--project-dir", str(root), "--tables", "--output", "json"]) == 0
    names = {row["name"] for row in json.loads(capsys.readouterr().out)}
    assert len(names) == 3 and "orders" in names
    assert main(["discover", str(lake), "--project-dir", str(root), "--detailed-exitcode"]) == 0
    capsys.readouterr()
    assert main(["discover", str(lake), "--project-dir", str(root), "--write", str(target)]) == 0
    assert main(["discover", str(tmp_path / "lake2"), "--project-dir", str(root)]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_an_existing_file_is_never_overwritten(
    lake: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "mine.yml"
    target.write_text("keep me\n")
    assert main(["discover", str(lake), "--write", str(target)]) == 1
    assert "exists; discover never overwrites a file" in capsys.readouterr().err
    assert target.read_text() == "keep me\n"
