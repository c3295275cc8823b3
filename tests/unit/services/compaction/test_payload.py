"""The HoodieCompactionPlan payload: version 2, file names, metrics, plan id."""

from __future__ import annotations

from maintainer.hudi import payloads
from maintainer.services.compaction.model import PlannedOperation, SliceFile, capture_metrics
from maintainer.services.compaction.payload import PLAN_ID_KEY, encode_compaction_plan


def test_plan_payload_round_trips_with_names_metrics_and_plan_id() -> None:
    base, logs = SliceFile("f-0_0-1-1_1.parquet", 2048), (SliceFile(".f-0_1.log.1_0-1-1", 10),)
    op = PlannedOperation("p=1", "f-0", "1", base, logs, capture_metrics(base, logs, 0))
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
