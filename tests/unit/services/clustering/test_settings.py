"""The clustering block: Hudi's defaults, validation of single options, the cross-field rules,
and the partition rule in one line."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from maintainer.services.clustering.settings import (
    ClusteringSpec,
    clustering_breaches,
    describe_partition_rule,
)

MiB = 1024 * 1024


def test_defaults_are_hudis() -> None:
    spec = ClusteringSpec()
    assert spec.max_commits == 4
    assert spec.small_file_limit == 314572800
    assert spec.max_bytes_per_group == 2147483648
    assert spec.target_file_max_bytes == 1073741824
    assert spec.max_num_groups == 30
    assert spec.single_group_clustering is True
    assert spec.sort_columns == () and spec.layout == "linear"
    assert spec.partition_filter_mode == "none"
    assert (spec.lookback_partitions, spec.skip_from_latest_partitions) == (2, 0)
    assert spec.parquet_max_file_size == 125829120
    assert spec.skip_partitions_written_within is None
    assert clustering_breaches(spec) == []


def test_sizes_and_durations_are_written_as_people_write_them() -> None:
    spec = ClusteringSpec.model_validate(
        {"small_file_limit": "100MiB", "max_bytes_per_group": "1GiB", "skip_partitions_written_within": "2d"}
    )
    assert spec.small_file_limit == 100 * MiB
    assert spec.max_bytes_per_group == 1024 * MiB
    assert spec.skip_partitions_written_within == timedelta(days=2)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"partition_regex": "region=("}, "not a valid regular expression"),
        ({"sort_columns": ["a", "a"]}, "given more than once"),
        ({"sort_columns": ["a,b"]}, "one column per list item"),
        ({"partitions": ["a,b"]}, "not a partition path"),
        ({"max_bytes_per_group": 0}, "greater than or equal to 1"),
        ({"small_file_limit": "lots"}, "is not a size"),
        ({"layout": "zorder"}, "'linear', 'z-order' or 'hilbert'"),
        ({"partition_filter_mode": "day_rolling"}, "'none', 'recent_days' or 'selected_partitions'"),
        ({"max_num_groups": 0}, "greater than or equal to 1"),
        ({"sort_column": ["a"]}, "Extra inputs are not permitted"),
    ],
)
def test_bad_values_say_what_is_wrong(values: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ClusteringSpec.model_validate(values)


def _messages(**values: object) -> list[str]:
    return [b.message for b in clustering_breaches(ClusteringSpec.model_validate(values))]


def test_a_curve_layout_needs_two_sort_columns() -> None:
    assert "sort_columns is empty" in _messages(layout="z-order")[0]
    assert "at least two sort_columns" in _messages(layout="hilbert", sort_columns=["a"])[0]
    assert _messages(layout="hilbert", sort_columns=["a", "b"]) == []
    assert _messages(layout="linear", sort_columns=["a"]) == []


def test_partition_bounds_go_with_selected_partitions() -> None:
    assert "only used with partition_filter_mode" in _messages(begin_partition="a")[0]
    assert "needs begin_partition" in _messages(partition_filter_mode="selected_partitions")[0]
    assert (
        "comes after end_partition"
        in _messages(partition_filter_mode="selected_partitions", begin_partition="b", end_partition="a")[0]
    )
    assert _messages(partition_filter_mode="selected_partitions", end_partition="a") == []


def test_a_regex_is_not_applied_to_listed_partitions() -> None:
    assert "not applied" in _messages(partitions=["a"], partition_regex="a")[0]


def test_the_rule_blames_the_option_to_change() -> None:
    (breach,) = clustering_breaches(ClusteringSpec(layout="z-order"))
    assert breach.blame[0] == ("clustering", "layout") and breach.hint


@pytest.mark.parametrize(
    ("values", "text"),
    [
        ({}, "all partitions"),
        ({"partition_filter_mode": "recent_days"}, "the 2 newest partitions (recent_days)"),
        (
            {"partition_filter_mode": "recent_days", "skip_from_latest_partitions": 1},
            "the 2 newest partitions after skipping 1 (recent_days)",
        ),
        ({"partition_filter_mode": "recent_days", "lookback_partitions": 0}, "all partitions (recent_days)"),
        (
            {"partition_filter_mode": "selected_partitions", "begin_partition": "a", "end_partition": "c"},
            "partitions from 'a' to 'c'",
        ),
        ({"partition_filter_mode": "selected_partitions", "end_partition": "c"}, "partitions up to 'c'"),
        ({"partition_regex": "dt=2024.*"}, "partitions matching 'dt=2024.*'"),
        ({"partitions": ["a", "b", "c", "d"]}, "the partitions a, b, c and 1 more"),
        ({"skip_partitions_written_within": "2d"}, "partitions not written within 2d"),
        (
            {"partition_regex": "x.*", "skip_partitions_written_within": "6h"},
            "partitions matching 'x.*', not written within 6h",
        ),
    ],
)
def test_the_partition_rule_in_one_line(values: dict[str, object], text: str) -> None:
    assert describe_partition_rule(ClusteringSpec.model_validate(values)) == text
