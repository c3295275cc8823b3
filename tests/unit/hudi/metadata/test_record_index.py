"""The record index against the keys of the latest slices: where a record points, and the three
ways they disagree (missing, at another file group, indexed but held by none)."""

from __future__ import annotations

from maintainer.hudi.metadata.record_index import compare_record_index, indexed_location

EU = ("region=eu", "6944b7ba-0aa5-4f2d-ad5a-2d7a1d6e4a31-0")
US = ("region=us", "383ffea5-b8c8-4a3c-9b9f-0a1ffc9b9d4d-0")


def _record(**info: object) -> dict[str, object]:
    return {"type": 5, "recordIndexMetadata": info}


def test_a_uuid_file_id_is_the_two_longs_and_the_file_index() -> None:
    record = _record(
        partitionName="region=eu",
        fileIdHighBits=7585347891545522221,
        fileIdLowBits=-5955514151403923806,
        fileIndex=0,
        fileId="",
        fileIdEncoding=0,
    )
    # TXN-018 of sample_table_mor_avro_v9_txns_simple_meta, whose base file is
    # region=eu/694491b7-ed54-402d-ad59-c36ed6c1d6a2-0_0-263-694_20260307162620509.parquet
    assert indexed_location(record) == ("region=eu", "694491b7-ed54-402d-ad59-c36ed6c1d6a2-0")


def test_a_string_file_id_is_taken_as_it_is() -> None:
    record = _record(partitionName="", fileId="files-0000-0", fileIdEncoding=1)
    assert indexed_location(record) == ("", "files-0000-0")
    assert indexed_location({"type": 5, "recordIndexMetadata": None}) is None


def test_an_index_that_matches_the_keys_passes() -> None:
    check = compare_record_index({"a": EU, "b": US}, {"a": {EU}, "b": {US}})
    assert check.passed and check.problems() == [] and check.keys_checked == 2


def test_a_key_held_by_two_file_groups_passes_when_indexed_at_one() -> None:
    assert compare_record_index({"a": US}, {"a": {EU, US}}).passed


def test_missing_misplaced_and_extra_keys_are_counted_and_named() -> None:
    check = compare_record_index({"b": EU, "c": US}, {"a": {EU}, "b": {US}})
    assert not check.passed
    assert check.missing == (("a", EU),)
    assert check.misplaced == (("b", EU, US),)
    assert check.extra == (("c", US),)
    missing, misplaced, extra = check.problems()
    assert "1 of 2 record key(s) are not indexed" in missing and f"'a' (in region=eu/{EU[1]})" in missing
    assert f"'b' indexed at region=eu/{EU[1]}, held by region=us/{US[1]}" in misplaced
    assert "1 indexed key(s) no file holds: 'c'" in extra


def test_only_the_first_few_mismatches_are_named() -> None:
    held = {f"k{i}": {EU} for i in range(20)}
    (problem,) = compare_record_index({}, held).problems()
    assert "20 of 20 record key(s)" in problem and problem.count("region=eu/") == 5
