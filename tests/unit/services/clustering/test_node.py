"""The clustering node made from a planner result, its requested payload (Hudi's record, the plan
id in its extraMetadata, the groups as approved), and the up-front check of an approved node."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from maintainer.artifact.model import ClusterGroup, ClusterSlice, ExecutePendingClustering, SliceFile
from maintainer.hudi import payloads
from maintainer.hudi.instants.instant import State
from maintainer.services.clustering.model import ClusteringPlanResult, PendingClustering, PlanStatus
from maintainer.services.clustering.node import (
    built_requested,
    clustering_payloads,
    node_from_result,
    payload_name,
)
from maintainer.services.clustering.payload import groups_of
from maintainer.services.clustering.validate import validate_clustering
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.storage import Storage

from .states import MB, base, ts


def group(partition: str, *file_ids: str, outputs: int = 1) -> ClusterGroup:
    slices = tuple(
        ClusterSlice(
            file_id=f, base_instant=ts(1), base_file=SliceFile(name=base(f, 1), size=MB), log_files=()
        )
        for f in file_ids
    )
    return ClusterGroup(
        partition=partition, slices=slices, num_output_file_groups=outputs, metrics={}, reason="r"
    )


def result(*groups: ClusterGroup, missing: tuple[str, ...] | None = ()) -> ClusteringPlanResult:
    return ClusteringPlanResult(
        PlanStatus.SCHEDULE, ts(9), ("trigger fires",), groups=groups, missing_partitions=missing,
        sort_columns=("rider",), layout="linear",
    )  # fmt: skip


def test_the_node_lists_pending_clusterings_first_then_the_groups_and_names_its_payload() -> None:
    pending = PendingClustering(ts(5), State.INFLIGHT, frozenset({("p", "x")}), 1, "abc")
    planned = replace(result(group("p", "a", "b")), pending=(pending,))
    node = node_from_result("t", planned)
    assert [a.kind for a in node.actions] == ["execute_pending_clustering", "cluster_group"]
    first = node.actions[0]
    assert isinstance(first, ExecutePendingClustering) and (first.target, first.sha256) == (ts(5), "abc")
    assert node.payloads == (payload_name("t"),) == ("t.clustering.requested",)
    assert any("SparkRejectUpdateStrategy" in r for r in node.reasons)


@pytest.mark.parametrize(("missing", "expected"), [((), ()), (None, None), (("q",), ("q",))])
def test_the_payload_is_the_approved_groups_with_the_plan_id(
    missing: tuple[str, ...] | None, expected: tuple[str, ...] | None, tmp_path: Path
) -> None:
    node = node_from_result("t", result(group("p", "a", "b"), group("q", "c"), missing=missing))
    storage = Storage(str(tmp_path))
    (data,) = clustering_payloads(node, storage, "plan-1").values()
    decoded = payloads.decode_requested_replace_metadata(data, "payload")
    assert decoded == built_requested(node, storage, "plan-1")
    assert decoded is not None and decoded.operation_type == "CLUSTER"
    assert decoded.extra_metadata == {PLAN_ID_KEY: "plan-1"}
    plan = decoded.clustering_plan
    assert plan is not None and plan.missing_schedule_partitions == expected
    assert plan.strategy is not None and plan.strategy.strategy_params == {
        "hoodie.clustering.plan.strategy.sort.columns": "rider"
    }
    assert [[(s.partition, s.file_id, s.base_file) for s in g] for g in groups_of(decoded)] == [
        [("p", "a", base("a", 1)), ("p", "b", base("b", 1))],
        [("q", "c", base("c", 1))],
    ]
    first = plan.input_groups[0].slices[0] if plan.input_groups and plan.input_groups[0].slices else None
    assert first is not None and first.data_file_path == f"{storage.uri('')}/p/{base('a', 1)}"


def _problems(node_groups: tuple[ClusterGroup, ...]) -> list[str]:
    node = node_from_result("t", result(*node_groups))
    return [f"{where}: {why}" for where, _value, why in validate_clustering(node, "file:/t") if why]


def test_a_sound_node_passes_its_check() -> None:
    assert _problems((group("p", "a", "b"), group("q", "a"))) == []


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (group("../x", "a"), "outside the table"),
        (group("p", "a", outputs=0), "at least one file group"),
        (replace(group("p", "a"), slices=()), "no file slice"),
        (group("p", "a/../../b"), "not a file id"),
    ],
)
def test_a_forged_group_is_refused_by_the_check(bad: ClusterGroup, expected: str) -> None:
    assert any(expected in p for p in _problems((bad,)))


def test_a_file_group_in_two_groups_is_refused() -> None:
    assert any("in two clustering groups" in p for p in _problems((group("p", "a"), group("p", "b", "a"))))
