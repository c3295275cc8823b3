"""Selection from the command line as dbt users expect it: several values after one --select or
--exclude, graph operators in table hops, state:modified against an earlier compile (--state),
selectors.yml (--selector, selector:), --profiles-dir, and a bad --vars value blamed on --vars."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from maintainer.cli import main
from maintainer.commands import apply_cmd
from maintainer.commands.options import LoadedProject
from tests.unit.project.projects import write_project

LAKE = """\
    version: 1
    tables:
      - name: raw
        path: /lake/raw
        tags: [bronze, nightly]
        archive: {}
      - name: orders
        path: /lake/orders
        depends_on: [raw]
        tags: [silver]
        archive: {}
      - name: daily
        path: /lake/daily
        depends_on: [orders]
        tags: [gold, nightly]
      - name: other
        path: /lake/other
    """
SELECTORS = """\
    selectors:
      - name: nightly
        description: what the nightly job maintains
        definition: "tag:nightly"
      - name: gold_and_up
        definition:
          union:
            - {method: tag, value: gold, parents_depth: 1}
            - exclude: [service:archive]
    """


@pytest.fixture
def project(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("MAINTAINER_PROFILES_DIR", raising=False)
    monkeypatch.delenv("MAINTAINER_PROJECT_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return write_project(
        tmp_path / "proj", {"tables/a.yml": None, "tables/lake.yml": LAKE, "selectors.yml": SELECTORS}
    )


def ls(capsys: pytest.CaptureFixture[str], project: Path, *args: str, tables: bool = True) -> set[str]:
    capsys.readouterr()
    code = main(["ls", "--project-dir", str(project), *(["--tables"] if tables else []), *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return set(captured.out.split())


def fails(capsys: pytest.CaptureFixture[str], project: Path, *args: str, code: int = 64) -> str:
    capsys.readouterr()
    assert main([args[0], "--project-dir", str(project), *args[1:]]) == code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return " ".join(err.split())


def test_several_values_after_one_select_or_exclude(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ls(capsys, project, "--select", "raw", "daily") == {"raw", "daily"}
    assert ls(capsys, project, "-s", "raw", "daily", "tag:silver") == {"raw", "orders", "daily"}
    assert ls(capsys, project, "-s", "raw", "-s", "daily") == {"raw", "daily"}
    assert ls(capsys, project, "-s", "raw daily") == {"raw", "daily"}
    assert ls(capsys, project, "--select", "raw", "orders", "--exclude", "orders", "other") == {"raw"}
    assert ls(capsys, project, "--exclude", "raw", "orders", "daily") == {"other"}
    nodes = ls(
        capsys, project, "--select", "orders", "raw", "--exclude", "orders.clean", "raw.archive", tables=False
    )
    assert nodes == {"orders.archive", "raw.clean"}


def test_select_values_stop_at_the_next_option(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["ls", "--select", "raw", "daily", "--output", "json", "--project-dir", str(project)]) == 0
    assert {row["table"] for row in json.loads(capsys.readouterr().out)} == {"raw", "daily"}


def test_apply_takes_several_selectors_with_auto_approve(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    planned: list[set[str]] = []

    def plan_now(loaded: LoadedProject, options: object) -> Path:
        planned.append({node.table for node in loaded.selected})
        raise SystemExit(0)

    monkeypatch.setattr(apply_cmd, "_plan_now", plan_now)
    with pytest.raises(SystemExit):
        main(["apply", "--auto-approve", "--select", "raw", "daily", "--project-dir", str(project)])
    with pytest.raises(SystemExit):
        main(["apply", "--project-dir", str(project), "--auto-approve", "--select", "raw", "daily"])
    assert planned == [{"raw", "daily"}, {"raw", "daily"}]
    assert "choose what to plan" in fails(capsys, project, "apply", "--select", "raw", "daily")
    assert "choose what to plan" in fails(capsys, project, "apply", "--selector", "nightly")


def test_graph_operators_count_tables_and_bring_them_whole(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ls(capsys, project, "-s", "+daily") == {"raw", "orders", "daily"}
    assert ls(capsys, project, "-s", "1+daily") == {"orders", "daily"}
    assert ls(capsys, project, "-s", "1+daily", tables=False) == {
        "orders.clean",
        "orders.archive",
        "daily.clean",
    }
    both = {"raw.clean", "raw.archive", "orders.clean", "orders.archive"}
    assert ls(capsys, project, "-s", "raw.clean+1", tables=False) == both
    assert ls(capsys, project, "-s", "+orders.clean", tables=False) == both - {"orders.archive"}
    assert ls(capsys, project, "-s", "0+orders.archive", tables=False) == {"orders.clean", "orders.archive"}
    assert ls(capsys, project, "-s", "@orders") == {"raw", "orders", "daily"}


def edit_orders(project: Path) -> None:
    lake = project / "tables" / "lake.yml"
    text = lake.read_text().replace("tags: [silver]", "tags: [silver]\n    clean: {commits_retained: 3}")
    lake.write_text(text + "  - name: fresh\n    path: /lake/fresh\n")


def test_state_modified_and_new_against_an_earlier_compile(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["compile", "--project-dir", str(project)]) == 0
    state = tmp_path / "prod-state"
    state.mkdir()
    shutil.copy(project / "target" / "manifest.json", state / "manifest.json")
    assert ls(capsys, project, "-s", "state:modified", "--state", str(state)) == set()
    # moving a table to another file does not modify it: only what it is counts
    (project / "tables" / "lake.yml").write_text("\n\n" + (project / "tables" / "lake.yml").read_text())
    assert ls(capsys, project, "-s", "state:modified", "--state", str(state)) == set()

    edit_orders(project)

    assert ls(capsys, project, "-s", "state:modified", "--state", str(state)) == {"orders", "fresh"}
    assert ls(capsys, project, "-s", "state:new", "--state", str(state)) == {"fresh"}
    assert ls(capsys, project, "-s", "state:modified+", "--state", str(state)) == {"orders", "daily", "fresh"}
    assert ls(capsys, project, "--exclude", "state:unmodified", "--state", str(state)) == {"orders", "fresh"}


def test_state_errors(project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    message = fails(capsys, project, "ls", "-s", "state:modified")
    assert (
        "state:modified needs --state DIR with a manifest.json from an earlier `maintainer compile`"
        in message
    )
    missing = tmp_path / "nowhere"
    assert f"{missing / 'manifest.json'} does not exist" in fails(
        capsys, project, "ls", "-s", "state:modified", "--state", str(missing)
    )
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    (wrong / "manifest.json").write_text('{"nodes": []}')
    message = fails(capsys, project, "ls", "-s", "state:new", "--state", str(wrong))
    assert f"{wrong / 'manifest.json'} is not a maintainer manifest.json" in message
    (wrong / "manifest.json").write_text('{"tables": {"raw": {"spec": {}}}}')
    message = fails(capsys, project, "ls", "-s", "state:new", "--state", str(wrong))
    assert "tables.raw.checksum: missing" in message and "tables.raw.sources: missing" in message
    assert "write it again with `maintainer compile --output`" in message
    assert main(["compile", "--project-dir", str(project), "--output", str(wrong / "manifest.json")]) == 0
    compiled = json.loads((wrong / "manifest.json").read_text())
    compiled["tables"]["raw"]["checksum"]["algorithm"] = "md5"  # a field no maintainer writes
    (wrong / "manifest.json").write_text(json.dumps(compiled))
    message = fails(capsys, project, "ls", "-s", "state:new", "--state", str(wrong))
    assert "tables.raw.checksum.algorithm: unknown field" in message


def test_selectors_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ls(capsys, project, "--selector", "nightly") == {"raw", "daily"}
    assert ls(capsys, project, "-s", "selector:nightly", "orders") == {"raw", "orders", "daily"}
    assert ls(capsys, project, "--selector", "gold_and_up", tables=False) == {"orders.clean", "daily.clean"}
    assert ls(capsys, project, "--selector", "nightly", "--exclude", "daily") == {"raw"}

    message = fails(capsys, project, "ls", "--selector", "nightley")
    assert "unknown selector 'nightley'" in message and "did you mean 'nightly'" in message
    assert "not both" in fails(capsys, project, "ls", "--selector", "nightly", "--select", "raw")


def test_a_broken_selectors_file_is_reported_with_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "selectors.yml").write_text("selectors:\n  - name: a\n    definiton: raw\n")
    message = fails(capsys, project, "validate", code=1)
    assert "selectors.yml:3:5: unknown key 'definiton'" in message and "did you mean 'definition'" in message


def test_profiles_dir(project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    elsewhere = tmp_path / "ci-profiles"
    elsewhere.mkdir()
    (elsewhere / "profiles.yml").write_text("demo:\n  target: ci\n  outputs:\n    ci: {threads: 2}\n")
    capsys.readouterr()
    assert main(["validate", "--project-dir", str(project), "--profiles-dir", str(elsewhere)]) == 0
    assert "(target ci)" in capsys.readouterr().out

    message = fails(capsys, project, "validate", "--profiles-dir", str(tmp_path), code=1)
    assert f"no profiles.yml in {tmp_path} (--profiles-dir)" in message


def test_profiles_dir_env_var(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "env-profiles"
    elsewhere.mkdir()
    (elsewhere / "profiles.yml").write_text("demo:\n  target: env\n  outputs:\n    env: {threads: 2}\n")
    monkeypatch.setenv("MAINTAINER_PROFILES_DIR", str(elsewhere))
    capsys.readouterr()
    assert main(["validate", "--project-dir", str(project)]) == 0
    assert "(target env)" in capsys.readouterr().out


def test_a_bad_vars_value_is_blamed_on_vars(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lake = project / "tables" / "lake.yml"
    lake.write_text(lake.read_text() + "    clean: {commits_retained: \"{{ var('keep') }}\"}\n")
    capsys.readouterr()
    assert main(["validate", "--project-dir", str(project), "--vars", "{keep: 4}"]) == 0

    message = fails(capsys, project, "validate", "--vars", "{keep: abc}", code=1)
    assert message.startswith("error: --vars: 'keep' = 'abc' (used at tables/lake.yml:18:")
    assert "clean.commits_retained: Input should be a valid integer" in message
    assert "hint: fix the value in --vars" in message

    (project / "maintainer_project.yml").write_text(
        (project / "maintainer_project.yml").read_text().replace("root: /lake", "root: /lake\n  keep: abc")
    )
    message = fails(capsys, project, "validate", code=1)
    assert message.startswith("error: tables/lake.yml:18:") and "--vars" not in message.split("hint")[0]


def test_profiles_dir_for_the_storage_options_of_inspect(
    project: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    capsys.readouterr()
    assert main(["inspect", str(tmp_path / "t"), "--profiles-dir", str(tmp_path)]) == 64
    assert "--profiles-dir needs --project-dir" in capsys.readouterr().err
    args = ["inspect", str(tmp_path / "t"), "--project-dir", str(project), "--profiles-dir", str(tmp_path)]
    assert main(args) == 1
    assert f"no profiles.yml in {tmp_path} (--profiles-dir)" in capsys.readouterr().err
