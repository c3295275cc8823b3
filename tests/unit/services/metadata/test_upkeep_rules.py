"""The metadata table's clean and archival rules, each named by the Java it follows."""

from __future__ import annotations

import pytest

from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.archive.planner import ArchiveInputs, plan_archive
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.policy import CleanPolicy
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.metadata.archival import MetadataArchivalSettings, data_table_boundary
from maintainer.services.metadata.clean import MetadataCleanSettings, clean_wait


def _completed(ts: str, action: str = "deltacommit") -> list[str]:
    pending = "compaction" if action == "commit" else action
    return [f"{ts}.{pending}.requested", f"{ts}.{pending}.inflight", f"{ts}_{ts[:-3]}999.{action}"]


def _timeline(*names: str) -> Timeline:
    return Timeline.from_file_names(names, 2, ".hoodie/timeline")


def _times(*suffixes: int) -> list[str]:
    return [f"20260101000000{n:03d}" for n in suffixes]


# -- HoodieMetadataWriteUtils.createMetadataWriteConfig ----------------------------------------------


def test_the_metadata_cleaner_keeps_20_commits_or_1_2_times_the_data_tables() -> None:
    assert MetadataCleanSettings.derived_from(CleanSpec()) == MetadataCleanSettings()
    assert MetadataCleanSettings().clean_commits_retained == 20
    assert MetadataCleanSettings.derived_from(CleanSpec(commits_retained=17)).clean_commits_retained == 20
    # (int) Math.max(20, 18 * 1.2): 21.599999999999998 truncated
    assert MetadataCleanSettings.derived_from(CleanSpec(commits_retained=18)).clean_commits_retained == 21
    assert MetadataCleanSettings.derived_from(CleanSpec(commits_retained=25)).clean_commits_retained == 30


def test_the_metadata_cleaner_borrows_the_data_tables_policy() -> None:
    versions = MetadataCleanSettings.derived_from(CleanSpec.model_validate({"file_versions_retained": 3}))
    assert versions.clean_policy is CleanPolicy.KEEP_LATEST_FILE_VERSIONS
    assert versions.clean_file_versions_retained == 4  # Math.ceil(3 * 1.2)
    hours = MetadataCleanSettings.derived_from(CleanSpec.model_validate({"hours_retained": 24}))
    assert hours.clean_policy is CleanPolicy.KEEP_LATEST_BY_HOURS
    assert hours.clean_hours_retained == 29  # Math.ceil(24 * 1.2)
    cleaner = versions.cleaner()
    assert cleaner.max_commits == 1 and cleaner.file_versions_retained == 4


def test_metadata_archival_keeps_one_more_commit_than_the_data_table() -> None:
    assert MetadataArchivalSettings.derived_from(ArchiveSpec()) == MetadataArchivalSettings()
    spec = MetadataArchivalSettings.derived_from(ArchiveSpec(keep_min_commits=5, keep_max_commits=8)).spec()
    assert (spec.keep_min_commits, spec.keep_max_commits, spec.archive_beyond_savepoint) == (6, 9, False)


# -- HoodieBackedTableMetadataWriter.cleanIfNecessary ------------------------------------------------


def test_no_clean_before_three_completed_instants_follow_the_latest_metadata_compaction() -> None:
    d1, c1, d2, d3, d4 = _times(1, 2, 3, 4, 5)
    base = [*_completed(d1), *_completed(c1, "commit")]
    assert clean_wait(_timeline(*_completed(d1))) == ""  # never compacted: no wait
    assert "0 completed instant(s)" in clean_wait(_timeline(*base))
    assert "2 completed instant(s)" in clean_wait(_timeline(*base, *_completed(d2), *_completed(d3)))
    pending = f"{d4}.deltacommit.requested"
    assert "2 completed" in clean_wait(_timeline(*base, *_completed(d2), *_completed(d3), pending))
    assert clean_wait(_timeline(*base, *_completed(d2), *_completed(d3), *_completed(d4))) == ""


def test_instants_requested_before_the_compaction_do_not_count_even_if_completed_after() -> None:
    d1, c1, d2, d3 = _times(1, 3, 5, 6)
    late = [f"{_times(2)[0]}.deltacommit.requested", f"{_times(2)[0]}_20260101000000009.deltacommit"]
    timeline = _timeline(*_completed(d1), *_completed(c1, "commit"), *late, *_completed(d2), *_completed(d3))
    assert "2 completed instant(s)" in clean_wait(timeline)


# -- TimelineUtils.getEarliestInstantForMetadataArchival ---------------------------------------------


def test_the_data_tables_earliest_commit_bounds_metadata_archival() -> None:
    d1, d2 = _times(10, 11)
    older_clean = _completed(_times(1)[0], "clean")
    boundary = data_table_boundary(_timeline(*older_clean, *_completed(d1), *_completed(d2)))
    assert boundary is not None and boundary.timestamp == d1  # a completed clean does not count
    assert data_table_boundary(_timeline(*older_clean)) is None


def test_an_earlier_pending_instant_of_any_action_bounds_it() -> None:
    clean, d1 = _times(3, 10)
    boundary = data_table_boundary(_timeline(f"{clean}.clean.requested", *_completed(d1)))
    assert boundary is not None and boundary.timestamp == clean
    assert "pending instant" in boundary.reason


def test_a_completed_data_compaction_counts_as_a_commit() -> None:
    c1, d1 = _times(2, 10)
    boundary = data_table_boundary(_timeline(*_completed(c1, "commit"), *_completed(d1)))
    assert boundary is not None and boundary.timestamp == c1


@pytest.mark.parametrize("data_start", [6, 30])
def test_metadata_instants_at_or_after_the_data_boundary_stay(data_start: int) -> None:
    times = _times(*range(1, 21))
    mdt = _timeline(*(name for t in times for name in _completed(t)))
    boundary = data_table_boundary(_timeline(*_completed(_times(data_start)[0])))
    inputs = ArchiveInputs(timeline=mdt, extra_boundaries=(boundary,) if boundary else ())
    result = plan_archive(inputs, ArchiveSpec(keep_min_commits=2, keep_max_commits=4))
    expected = [t for t in times if t < _times(data_start)[0]][:18]
    assert [i.timestamp for i in result.instants] == expected


# -- TimelineArchiverV2 step 2 on the metadata table (CompactionUtils.getEarliestInstantToRetainForCompaction)


@pytest.mark.parametrize(
    "after", [pytest.param(9, id="from-the-compaction"), pytest.param(12, id="the-10-newest-delta-commits")]
)
def test_metadata_archival_keeps_the_latest_compaction_and_the_delta_commits_the_trigger_counts(
    after: int,
) -> None:
    times = _times(*range(1, 42 + after))
    compaction = times[40]
    names = [n for t in times[:40] for n in _completed(t)]
    names += _completed(compaction, "commit")
    names += [n for t in times[41:] for n in _completed(t)]
    settings = MetadataArchivalSettings(keep_min_commits=2, keep_max_commits=4)
    inputs = ArchiveInputs(
        timeline=_timeline(*names), compaction_max_delta_commits=settings.compact_max_delta_commits
    )
    result = plan_archive(inputs, settings.spec())
    stop = compaction if after < 10 else times[41 + after - 10]
    assert [i.timestamp for i in result.instants] == [t for t in times if t < stop]
    assert result.boundaries[0].timestamp == stop
