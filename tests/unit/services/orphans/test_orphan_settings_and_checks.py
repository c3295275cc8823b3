"""The ``orphan_files`` block and the up-front check of an approved node: ``min_age`` under an
hour and a quarantine that is not one folder of ours under ``.hoodie/`` are refused with why;
a planned file outside the table, inside ``.hoodie/`` (but for markers) or not a Hudi data
file is refused before anything runs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from maintainer.artifact.model import NodePlan, NodeStatus, OrphanEffect, RemoveOrphanFile
from maintainer.services.orphans.settings import OrphanFilesSpec
from maintainer.services.orphans.validate import validate_orphan_files

BASE = "p/f1-0_0-1-0_20260101000000000.parquet"
MARKER = ".hoodie/.temp/20260101000000000/p/f1-0_0-1-0_20260101000000000.parquet.marker.CREATE"


def test_defaults_are_seven_days_and_delete() -> None:
    spec = OrphanFilesSpec()
    assert spec.min_age == timedelta(days=7) and spec.quarantine_folder() is None
    assert OrphanFilesSpec(quarantine=".q").quarantine_folder() == ".hoodie/.q"


@pytest.mark.parametrize("min_age", ["59m", "0s", "30s"])
def test_min_age_under_an_hour_is_refused(min_age: str) -> None:
    with pytest.raises(ValidationError, match="under 1h"):
        OrphanFilesSpec.model_validate({"min_age": min_age})


@pytest.mark.parametrize("name", ["../up", "q", ".temp", ".aux", "a/b", "/abs", ".", ".."])
def test_a_quarantine_that_is_not_one_folder_of_ours_is_refused(name: str) -> None:
    with pytest.raises(ValidationError, match="not a folder name of ours"):
        OrphanFilesSpec(quarantine=name)


def _node(*actions: RemoveOrphanFile, quarantine: str | None = None) -> NodePlan:
    effect = OrphanEffect(
        files=len(actions), bytes=1, quarantine=quarantine, min_age="1w", left_pending=0,
        left_archived=0, left_young=0, left_listed=0,
    )  # fmt: skip
    return NodePlan(
        table="t", service="orphan_files", status=NodeStatus.CHANGES, actions=actions, effect=effect
    )


def _remove(target: str, orphan: str = "dangling") -> RemoveOrphanFile:
    return RemoveOrphanFile(target=target, reason="r", size=1, age_seconds=9, orphan=orphan)  # type: ignore[arg-type]


def _problems(node: NodePlan) -> list[str]:
    return [f"{where}: {why}" for where, _value, why in validate_orphan_files(node, "file:///t") if why]


def test_data_files_and_markers_pass() -> None:
    assert _problems(_node(_remove(BASE), _remove(MARKER, "markers"), quarantine=".hoodie/.q")) == []


@pytest.mark.parametrize(
    ("target", "orphan", "why"),
    [
        ("../other/f1-0_0-1-0_20260101000000000.parquet", "dangling", "outside the table"),
        ("/etc/passwd", "dangling", "outside the table"),
        (".hoodie/hoodie.properties", "dangling", "inside .hoodie/"),
        ("p/notes.txt", "not_in_write_stats", "not a Hudi data file"),
        (".hoodie/timeline/20260101000000000.commit", "markers", "a marker outside .hoodie/.temp/"),
        (".hoodie/.temp/../hoodie.properties", "markers", "outside the table"),
    ],
)
def test_a_file_the_node_may_not_remove_is_refused(target: str, orphan: str, why: str) -> None:
    (problem,) = _problems(_node(_remove(target, orphan)))
    assert why in problem


@pytest.mark.parametrize("quarantine", ["../../elsewhere", ".hoodie/.temp", "s3://bucket/q", ".hoodie/a/b"])
def test_an_edited_quarantine_is_refused(quarantine: str) -> None:
    (problem,) = _problems(_node(_remove(BASE), quarantine=quarantine))
    assert problem.startswith("effect.quarantine")
