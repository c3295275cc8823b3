"""The one-line outcome of a compaction node: what was compacted, what was rolled back first,
corrupt log blocks skipped, drift."""

from __future__ import annotations

from typing import Any

from maintainer.services.base import Drift
from maintainer.services.compaction.apply import _summary
from maintainer.services.compaction.effects import CompactionApplyEffects


def effects(**overrides: Any) -> CompactionApplyEffects:
    base: dict[str, Any] = {
        "compactions": ["20250101000000000"],
        "slices_compacted": 2,
        "files_written": ["p/a_0-1-0_1.parquet", "p/b_1-1-1_1.parquet"],
        "bytes_written": 2048,
        "rollbacks": [],
        "rolled_back_files": [],
        "corrupt_log_blocks_skipped": {},
    }
    return CompactionApplyEffects.model_validate({**base, **overrides})


def test_compacted_slices_are_counted() -> None:
    assert _summary(effects(), []) == "2 file slice(s) compacted in 1 compaction(s)"


def test_nothing_to_do() -> None:
    assert _summary(effects(compactions=[], slices_compacted=0), []) == "nothing to do"


def test_skipped_corrupt_blocks_and_drift_are_said() -> None:
    text = _summary(
        effects(corrupt_log_blocks_skipped={"p/a_0-1-0_1.parquet": 1, "p/b_1-1-1_1.parquet": 2}),
        [Drift("p/c", "the file slice has a new base file since the plan")],
    )
    assert "3 corrupt log block(s) skipped as Hudi does" in text and "in 2 slice(s)" in text
    assert text.endswith(", 1 drifted")


def test_an_earlier_attempt_rolled_back_is_said() -> None:
    text = _summary(effects(rollbacks=["20250101000000001"], rolled_back_files=["p/x.parquet"]), [])
    assert "rolled back first (rollback 20250101000000001, 1 partial file(s) deleted)" in text
