"""``maintainer debug``'s table checks: what each finds, and that nothing is left in the table."""

from __future__ import annotations

import os
from pathlib import Path

from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.diagnostics.checks import CheckResult, CheckStatus
from maintainer.diagnostics.storage_checks import check_table


def statuses(results: list[CheckResult]) -> dict[str, CheckStatus]:
    return {result.name: result.status for result in results}


def files_under(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def table(path: Path, version: int = 8) -> Path:
    workload = WorkloadSpec(partitions=1, file_groups=1, commits=2, rows_per_commit=5, seed=1)
    generate(str(path), DatagenSpec("t", "mor", version, workload))
    return path


def test_a_hudi_table_passes_every_check_and_is_left_as_it_was(tmp_path: Path) -> None:
    root = table(tmp_path / "t")
    before = files_under(root)
    results = check_table("t", str(root), {})
    assert statuses(results) == dict.fromkeys(
        ["storage", "Hudi table", "timeline", "writable"], CheckStatus.PASSED
    )
    by_name = {result.name: result.detail for result in results}
    assert by_name["Hudi table"] == "MERGE_ON_READ table 't', table version 8"
    assert by_name["timeline"] == "2 completed instant(s), 0 pending"
    assert files_under(root) == before


def test_a_missing_folder_and_a_folder_without_a_table_are_named(tmp_path: Path) -> None:
    missing = check_table("gone", str(tmp_path / "gone"), {})
    assert statuses(missing)["Hudi table"] is CheckStatus.FAILED
    assert "does not exist" in missing[1].detail
    assert [result.status for result in missing[2:]] == [CheckStatus.SKIPPED] * 2
    (tmp_path / "empty").mkdir()
    empty = check_table("empty", str(tmp_path / "empty"), {})
    assert "no .hoodie/hoodie.properties under" in empty[1].detail
    assert empty[1].fix is not None and "path in its manifest" in empty[1].fix


def test_an_unsupported_table_version_fails_with_hudis_words(tmp_path: Path) -> None:
    root = table(tmp_path / "t")
    properties = root / ".hoodie" / "hoodie.properties"
    properties.write_text(properties.read_text().replace("hoodie.table.version=8", "hoodie.table.version=4"))
    results = check_table("t", str(root), {})
    assert statuses(results)["Hudi table"] is CheckStatus.FAILED
    assert "4" in results[1].detail
    assert statuses(results)["writable"] is CheckStatus.SKIPPED


def test_a_linked_hoodie_folder_is_refused_and_nothing_is_written_through_it(tmp_path: Path) -> None:
    root = table(tmp_path / "t")
    elsewhere = tmp_path / "elsewhere"
    (root / ".hoodie").rename(elsewhere)
    os.symlink(elsewhere, root / ".hoodie")
    before = files_under(elsewhere)
    results = check_table("t", str(root), {})
    assert statuses(results)["writable"] is CheckStatus.FAILED
    writable = results[-1]
    assert "outside the table" in writable.detail
    assert files_under(elsewhere) == before


def test_storage_that_cannot_be_opened_fails_first(tmp_path: Path) -> None:
    results = check_table("t", "memory://nowhere/t", {"region": "eu-west-1"})
    assert [result.status for result in results] == [CheckStatus.FAILED] + [CheckStatus.SKIPPED] * 3
    assert "storage options are not taken" in results[0].detail
