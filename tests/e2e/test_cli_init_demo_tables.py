"""``maintainer init DIR --with-demo-tables`` (issue 30): a fresh project runnable on its own,
its example manifest's tables written small, in process, under DIR/lake; without the option
init says where the example tables are expected and how to get them."""

from __future__ import annotations

from pathlib import Path

import pytest

from maintainer.cli import main
from tests.support import artifacts, oracle


@pytest.fixture(autouse=True)
def no_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MAINTAINER_PROJECT_DIR", "MAINTAINER_PROFILES_DIR", "MAINTAINER_LAKE_ROOT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_a_project_with_demo_tables_validates_and_plans_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "my-lake"
    assert main(["init", str(root), "--with-demo-tables"]) == 0
    out = capsys.readouterr().out
    assert f"under {root / 'lake'}; lake_root points there" in out
    assert (
        f"lake_root: \"{{{{ env_var('MAINTAINER_LAKE_ROOT', '{root / 'lake'}') }}}}\""
        in (root / "maintainer_project.yml").read_text()
    )
    for name, table_type in (("trips", "MERGE_ON_READ"), ("trips_daily", "COPY_ON_WRITE")):
        properties = (root / "lake" / name / ".hoodie" / "hoodie.properties").read_text()
        assert f"hoodie.table.type={table_type}" in properties
        assert oracle.snapshot_rows(root / "lake" / name)  # hudi-rs reads it
    assert main(["validate", "--project-dir", str(root)]) == 0
    assert main(["plan", "--project-dir", str(root)]) == 0
    data = artifacts.plan_json(root / "target" / "plan")
    status = {f"{n['table']}.{n['service']}": n["status"] for t in data["tables"] for n in t["nodes"]}
    assert status["trips.compaction"] == "changes" and status["trips_daily.clean"] == "changes"
    assert "blocked" not in status.values()


def test_without_the_option_init_says_where_the_example_tables_are_expected(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path / "p")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "the example manifest's tables are under lake_root (/tmp/maintainer-lake unless" in out
    assert "--with-demo-tables" in out
    assert not (tmp_path / "p" / "lake").exists()


def test_demo_tables_never_replace_what_is_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "p"
    (root / "tables").mkdir(parents=True)
    (root / "README.md").write_text("mine\n")
    assert main(["init", str(root), "--with-demo-tables"]) == 0  # README kept, the rest new
    assert (root / "README.md").read_text() == "mine\n"
    other = tmp_path / "q"
    other.mkdir()
    (other / "lake" / "trips").mkdir(parents=True)
    assert main(["init", str(other), "--with-demo-tables"]) == 1
    err = capsys.readouterr().err
    assert f"{other / 'lake' / 'trips'} already exists" in err
    assert not (other / "lake" / "trips" / ".hoodie").exists()
    assert not (other / "maintainer_project.yml").exists()  # refused before anything was written
