from __future__ import annotations

import pytest

from maintainer.hudi.instants.layout import TimelineLayout

V1, V2 = TimelineLayout.V1, TimelineLayout.V2


def test_version_and_number() -> None:
    assert [TimelineLayout.for_version(v) for v in (5, 6, 8, 9)] == [V1, V1, V2, V2]
    assert TimelineLayout.parse("2") is V2 and V2 == 2
    with pytest.raises(ValueError, match="must be 1 or 2"):
        TimelineLayout.parse("")


def test_directories() -> None:
    assert V1.timeline_dir("ignored") == ".hoodie"
    assert V1.archive_dir("old") == ".hoodie/old"
    assert V2.timeline_dir() == ".hoodie/timeline"
    assert V2.archive_dir("ignored", "tl", "hist") == ".hoodie/tl/hist"


def test_completed_file_names() -> None:
    assert (
        V1.completed_file_name("20250101000000000", "commit", "20250101000000001")
        == "20250101000000000.commit"
    )
    assert V2.completed_file_name("1", "deltacommit", "2") == "1_2.deltacommit"
    with pytest.raises(ValueError, match="needs a completion time"):
        V2.completed_file_name("1", "commit", None)


def test_rules() -> None:
    assert (V1.records_completion_time, V1.logs_name_their_slice, V1.has_lsm_history) == (False, True, False)
    assert (V2.records_completion_time, V2.logs_name_their_slice, V2.commit_metadata_is_avro) == (
        True,
        False,
        True,
    )
