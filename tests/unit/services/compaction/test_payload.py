"""The HoodieCompactionPlan payload: version 2, file names, metrics, plan id."""

from __future__ import annotations

import pytest

from maintainer.errors import ApplyError
from maintainer.executors.compaction.executor import slices_of
from maintainer.hudi import payloads
from maintainer.hudi.payloads import CompactionOperation, CompactionPlan
from maintainer.services.common.ledger import PLAN_ID_KEY
from maintainer.services.compaction.model import capture_metrics
from maintainer.services.compaction.payload import encode_compaction_plan
from tests.support.plans import compact_slice, slice_file


def test_plan_payload_round_trips_with_names_metrics_and_plan_id() -> None:
    base, logs = slice_file("f-0_0-1-1_1.parquet", 2048), (slice_file(".f-0_1.log.1_0-1-1", 10),)
    op = compact_slice("p=1", "f-0", "1", base, logs, capture_metrics(base, logs, 0))
    data = encode_compaction_plan([op], "abc")
    assert data == encode_compaction_plan([op], "abc")  # deterministic
    plan = payloads.decode_compaction_plan(data, "test")
    assert plan is not None and plan.version == 2 and plan.extra_metadata == {PLAN_ID_KEY: "abc"}
    (decoded,) = plan.operations or ()
    assert decoded.data_file_path == "f-0_0-1-1_1.parquet" and decoded.delta_file_paths == (
        ".f-0_1.log.1_0-1-1",
    )
    assert decoded.partition_path == "p=1" and decoded.base_instant_time == "1"
    assert decoded.metrics is not None and decoded.metrics["TOTAL_LOG_FILES_SIZE"] == 10.0


def test_bootstrap_operations_are_refused_by_the_executor() -> None:
    op = CompactionOperation(
        base_instant_time="1", file_id="f-0", partition_path="", bootstrap_file_path="/src/x"
    )
    with pytest.raises(ApplyError, match="bootstrap"):
        slices_of(CompactionPlan(operations=(op,)))


def test_plan_version_1_full_paths_become_names() -> None:
    op = CompactionOperation(
        base_instant_time="1", file_id="f-0", partition_path="p", data_file_path="/t/p/f-0_1-0-1_1.parquet",
        delta_file_paths=("/t/p/.f-0_1.log.1_0-1-1",),
    )  # fmt: skip
    (slice_,) = slices_of(CompactionPlan(operations=(op,), version=1))
    assert slice_.base_file == "f-0_1-0-1_1.parquet" and slice_.log_files == (".f-0_1.log.1_0-1-1",)


def test_payload_bytes_do_not_depend_on_the_order_metrics_were_stored_in() -> None:
    base, logs = slice_file("f-0_0-1-1_1.parquet", 2048), (slice_file(".f-0_1.log.1_0-1-1", 10),)
    metrics = capture_metrics(base, logs, 0)
    op = compact_slice("p", "f-0", "1", base, logs, metrics)
    resorted = compact_slice("p", "f-0", "1", base, logs, dict(sorted(metrics.items())))
    assert encode_compaction_plan([op], "x") == encode_compaction_plan([resorted], "x")
    decoded = payloads.decode_compaction_plan(encode_compaction_plan([resorted], "x"), "t")
    assert decoded is not None and list((decoded.operations or ())[0].metrics or {})[:2] == [
        "TOTAL_LOG_FILES",
        "TOTAL_IO_MB",
    ]
