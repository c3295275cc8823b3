"""Review gates: a clean or compaction node over its table's gate is planned blocked, naming the
figure, the gate and the manifest; a node under every gate (or a table without gates) is left
as planned."""

from __future__ import annotations

import pytest

from maintainer.artifact.model import NodePlan, NodeStatus
from maintainer.artifact.model.clean import DeleteFile
from maintainer.artifact.model.compaction import CompactionEffect
from maintainer.planning.gates import gated
from maintainer.project import TableSpec
from maintainer.project.gates import GatesSpec, parse_size

GiB = 1024**3


def spec(**gates: object) -> TableSpec:
    return TableSpec.model_construct(
        name="trips", path="/lake/trips", manifest="tables/trips.yml", line=3,
        gates=GatesSpec.model_validate(gates) if gates else None,
    )  # fmt: skip


def clean(files: int, size_each: int) -> NodePlan:
    deletes = tuple(
        DeleteFile(target=f"city=a/f{i}.parquet", reason="old", size=size_each, partition="city=a")
        for i in range(files)
    )
    return NodePlan(table="trips", service="clean", status=NodeStatus.CHANGES, actions=deletes)


def compaction(input_bytes: int) -> NodePlan:
    effect = CompactionEffect(
        pending_instants=(), slices=3, log_files=9, input_bytes=input_bytes,
        expected_output_bytes=input_bytes, strategy="log_file_size", skipped=(),
    )  # fmt: skip
    return NodePlan(table="trips", service="compaction", status=NodeStatus.CHANGES, effect=effect)


@pytest.mark.parametrize(
    ("text", "size"),
    [("500MiB", 500 * 1024**2), ("2GiB", 2 * GiB), ("1.5TB", 1_500_000_000_000), ("10 kb", 10_000),
     ("4096", 4096), (4096, 4096), ("7B", 7)],
)  # fmt: skip
def test_sizes_as_people_write_them(text: object, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("bad", ["2 gigs", "-1", "GiB", "1.5.2GB", True, -3, 1.5])
def test_sizes_that_are_not_sizes_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="size"):
        parse_size(bad)


def test_a_clean_over_its_file_gate_is_blocked_naming_the_figures() -> None:
    node = gated(clean(files=1204, size_each=1000), spec(max_delete_files=1000))
    assert node.status is NodeStatus.BLOCKED
    assert node.actions == ()
    assert node.reasons == (
        "over the gate gates.max_delete_files of table trips (tables/trips.yml): this clean deletes "
        "1,204, the gate allows 1,000; raise the gate in the manifest (a reviewed change) or maintain "
        "the table more often",
    )


def test_a_clean_over_both_delete_gates_names_both() -> None:
    node = gated(clean(files=4, size_each=GiB), spec(max_delete_files=3, max_delete_bytes="3GiB"))
    assert node.status is NodeStatus.BLOCKED
    assert len(node.reasons) == 2
    assert "this clean deletes 4.0 GiB, the gate allows 3.0 GiB" in node.reasons[1]


def test_a_compaction_over_its_gate_is_blocked() -> None:
    node = gated(compaction(input_bytes=600 * 1024**2), spec(max_compaction_bytes="512MiB"))
    assert node.status is NodeStatus.BLOCKED
    assert "this compaction reads 600.0 MiB, the gate allows 512.0 MiB" in node.reasons[0]


def test_nodes_within_their_gates_say_so_and_tables_without_gates_are_left_alone() -> None:
    under = clean(files=3, size_each=10)
    within = gated(under, spec(max_delete_files=3, max_delete_bytes=30))
    assert within.status is NodeStatus.CHANGES and within.actions == under.actions
    assert within.reasons == (
        "within gates.max_delete_files: this clean deletes 3 of 3 allowed",
        "within gates.max_delete_bytes: this clean deletes 30 B of 30 B allowed",
    )
    assert gated(under, spec()) is under
    big = compaction(input_bytes=10 * GiB)
    assert gated(big, spec(max_delete_bytes="1GiB")) == big  # a delete gate does not limit compaction
