"""Index findings: each names its metadata partition and where, and a damaged index shows at
most a bounded number of them."""

from __future__ import annotations

from maintainer.hudi.metadata.findings import REBUILD_HINT, SHOWN, IndexFinding, data_file, described


def test_a_finding_names_partition_where_problem_and_what_to_do() -> None:
    finding = IndexFinding("column_stats", data_file("", "f.parquet"), "it differs")
    assert finding.describe() == f"column_stats: (non-partitioned)/f.parquet: it differs ({REBUILD_HINT})"


def test_findings_are_bounded_per_partition_and_the_rest_counted() -> None:
    many = [IndexFinding("bloom_filters", f"p/f{i}", "x") for i in range(SHOWN + 3)]
    few = [IndexFinding("column_stats", "p/g", "y")]
    lines = described(many + few)
    assert len(lines) == SHOWN + 2
    assert lines[SHOWN].startswith("column_stats: p/g: y")
    assert lines[-1].startswith("bloom_filters: 3 more disagreement(s) like the above")
