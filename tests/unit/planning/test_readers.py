"""Declared readers at planning time, on a table generated one commit an hour: a clean or
archive that would remove what a reader still needs is blocked naming the reader, the instant
and the hours lost; one within every reader's reach says its margin."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError

from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.project.readers import ReaderSpec
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.settings import CleanSpec

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
NOW = START + timedelta(hours=10)
"""The generator's clock moves 30 min a call: the 6 commits are at 01:00, 02:30, ... 06:30
(completed half an hour later); the plan is made at 10:00."""


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("readers") / "t"
    calls = iter(range(1, 1000))

    def clock() -> datetime:
        return START + timedelta(minutes=30 * next(calls))

    workload = WorkloadSpec(partitions=1, file_groups=2, commits=6, rows_per_commit=10, seed=5)
    generate(str(path), DatagenSpec("t", "cow", 8, workload), clock=clock)
    return path


def plan(path: Path, *readers: ReaderSpec, service: str = "clean") -> NodePlan:
    spec = TableSpec.of(
        name="t", path=str(path), manifest="tables/t.yml", line=1,
        clean=CleanSpec(policy="keep_latest_file_versions", file_versions_retained=1),
        archive=ArchiveSpec(keep_min_commits=2, keep_max_commits=3),
        readers=readers or None,
    )  # fmt: skip
    built = build_plan("proj", "dev", [TableRequest(spec, (service,))], {}, NOW, threads=1)
    (node,) = built.plan.tables[0].nodes
    return node


def test_readers_need_exactly_one_of_lag_or_keep() -> None:
    with pytest.raises(ValidationError, match="give exactly one of lag"):
        ReaderSpec.model_validate({"name": "both", "lag": "1h", "keep": "1d"})
    with pytest.raises(ValidationError, match="give exactly one of lag"):
        ReaderSpec.model_validate({"name": "neither"})
    assert ReaderSpec.model_validate({"name": "audit", "keep": "7d"}).describe() == "audit (keep 1w)"


def test_without_readers_the_clean_is_planned_as_before(table: Path) -> None:
    node = plan(table)
    assert node.status is NodeStatus.CHANGES
    assert not any("reader" in reason for reason in node.reasons)


def test_a_clean_within_every_readers_reach_says_its_margin(table: Path) -> None:
    reader = ReaderSpec.model_validate({"name": "finance_incremental", "lag": "2h"})
    node = plan(table, reader)
    assert node.status is NodeStatus.CHANGES
    (note,) = [reason for reason in node.reasons if "finance_incremental" in reason]
    assert note.startswith("reader finance_incremental (lag 2h): margin ")
    assert "the reader needs everything after 2026-01-01 08:00" in note


def test_a_clean_that_would_cut_off_a_time_travel_reader_is_blocked(table: Path) -> None:
    audit = ReaderSpec.model_validate({"name": "time_travel_audit", "keep": "9h"})
    node = plan(table, audit)
    assert node.status is NodeStatus.BLOCKED
    assert node.actions == ()
    (reason,) = node.reasons
    assert reason.startswith(
        "would cut off reader time_travel_audit (keep 9h): this clean removes file versions"
    )
    assert "after the reader's horizon 2026-01-01 01:00" in reason
    assert "it would lose " in reason


def test_an_archive_that_would_cut_off_an_incremental_reader_is_blocked(table: Path) -> None:
    node = plan(table, ReaderSpec.model_validate({"name": "cdc", "lag": "8h"}), service="archive")
    assert node.status is NodeStatus.BLOCKED
    assert "would cut off reader cdc (lag 8h): this archive archives instants up to" in node.reasons[0]
    relaxed = plan(table, ReaderSpec.model_validate({"name": "cdc", "lag": "1h"}), service="archive")
    assert relaxed.status is NodeStatus.CHANGES
    assert any(reason.startswith("reader cdc (lag 1h): margin") for reason in relaxed.reasons)
