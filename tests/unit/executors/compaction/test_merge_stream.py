"""The streaming slice merge (log entries folded per key, joined with base row groups) against
the record-at-a-time merge of ``maintainer.hudi.records.merge``, and its own rules."""

from __future__ import annotations

import json
import random
import sys
from typing import Any
from unittest import mock

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maintainer.executors.common.base_merge import SliceMerger
from maintainer.executors.common.log_state import build_log_state, keys_all_distinct
from maintainer.hudi import logformat
from maintainer.hudi.config.properties import MergeMode
from maintainer.hudi.logformat import DeleteRecord, OrderingValue
from maintainer.hudi.records.merge import LogDeletes, LogItem, LogRecords, MergeRules, merge_file_slice

AVRO = json.dumps({
    "type": "record", "name": "r", "fields": [
        {"name": "_hoodie_record_key", "type": ["null", "string"], "default": None},
        {"name": "k", "type": ["null", "string"], "default": None},
        {"name": "ts", "type": ["null", "long"], "default": None},
        {"name": "v", "type": ["null", "string"], "default": None},
    ],
})  # fmt: skip
SCHEMA = logformat.arrow_schema(AVRO)
EVENT = MergeRules(MergeMode.EVENT_TIME_ORDERING, "ts", ("k",), True)
COMMIT = MergeRules(MergeMode.COMMIT_TIME_ORDERING, "ts", ("k",), True)
NO_META = MergeRules(MergeMode.COMMIT_TIME_ORDERING, None, ("k",), False)


def row(key: str, ts: int | None, value: str) -> dict[str, Any]:
    return {"_hoodie_record_key": key, "k": key, "ts": ts, "v": value}


def blocks(items: list[LogItem]) -> list[logformat.LogBlock]:
    data = b""
    for item in items:
        if isinstance(item, LogRecords):
            data += logformat.avro_data_block(item.records, AVRO, item.instant_time)
        else:
            deletes = [
                DeleteRecord(k, "", OrderingValue.infer(o) if o is not None else None)
                for k, o in item.deletes
            ]
            data += logformat.delete_block(deletes, item.instant_time, AVRO)
    return logformat.read_log_blocks(data, "test.log")


def streamed(
    base: pa.Table | None, items: list[LogItem], rules: MergeRules, group_rows: int = 2
) -> dict[str, Any]:
    merger = SliceMerger(build_log_state(blocks(items), rules, SCHEMA), rules)
    parts = []
    if base is not None:
        parts += [
            merger.merge_row_group(base.slice(i, group_rows)) for i in range(0, base.num_rows, group_rows)
        ]
    parts.append(merger.inserts())
    return by_key(pa.concat_tables(parts))


def by_key(table: pa.Table) -> dict[str, Any]:
    rows = table.to_pylist()
    keys = [r["k"] for r in rows]
    assert len(keys) == len(set(keys)), "a key was written twice"
    return {r["k"]: (r["ts"], r["v"]) for r in rows}


def base_of(*rows: dict[str, Any]) -> pa.Table:
    return pa.Table.from_pylist(list(rows), schema=SCHEMA)


def test_commit_time_last_write_wins_and_deletes_delete() -> None:
    base = base_of(row("a", 5, "base"), row("b", 5, "base"), row("c", 5, "base"))
    items: list[LogItem] = [
        LogRecords("1", [row("a", 1, "x1"), row("d", 1, "d1")]),
        LogDeletes("2", [("b", None), ("a", None)]),
        LogRecords("3", [row("a", 0, "x3")]),
    ]
    assert streamed(base, items, COMMIT) == {"a": (0, "x3"), "c": (5, "base"), "d": (1, "d1")}


def test_event_time_lower_ordering_loses_to_base() -> None:
    base = base_of(row("a", 5, "base"), row("b", 5, "base"))
    items: list[LogItem] = [LogRecords("1", [row("a", 3, "old"), row("b", 5, "tie")])]
    assert streamed(base, items, EVENT) == {"a": (5, "base"), "b": (5, "tie")}


def test_event_time_ordered_delete_only_deletes_when_not_lower() -> None:
    base = base_of(row("a", 5, "base"), row("b", 5, "base"), row("c", 5, "base"))
    items: list[LogItem] = [LogDeletes("1", [("a", 4), ("b", 6), ("c", 0)])]
    assert streamed(base, items, EVENT) == {"a": (5, "base")}


def test_event_time_fold_in_the_log_keeps_the_greatest_ordering() -> None:
    items: list[LogItem] = [
        LogRecords("1", [row("a", 7, "seven")]),
        LogRecords("2", [row("a", 3, "three"), row("b", 1, "b1")]),
        LogDeletes("3", [("b", None)]),
        LogRecords("4", [row("b", 0, "b-again")]),
    ]
    assert streamed(None, items, EVENT) == {"a": (7, "seven"), "b": (0, "b-again")}


def test_keys_without_meta_column_come_from_the_record_key_fields() -> None:
    base = base_of({"_hoodie_record_key": None, "k": "a", "ts": 1, "v": "base"})
    items: list[LogItem] = [LogRecords("1", [{"_hoodie_record_key": None, "k": "a", "ts": 2, "v": "new"}])]
    assert streamed(base, items, NO_META) == {"a": (2, "new")}


def test_counts_for_the_write_stat() -> None:
    base = base_of(row("a", 1, "b"), row("b", 1, "b"), row("c", 1, "b"))
    items: list[LogItem] = [
        LogRecords("1", [row("a", 2, "u"), row("z", 2, "i")]),
        LogDeletes("2", [("b", None)]),
    ]
    merger = SliceMerger(build_log_state(blocks(items), COMMIT, SCHEMA), COMMIT)
    merger.merge_row_group(base)
    merger.inserts()
    counts = merger.counts
    assert (counts.kept, counts.updated, counts.deleted, counts.inserted) == (1, 1, 1, 1)


@pytest.mark.parametrize("seed", range(20))
def test_commit_time_matches_the_record_at_a_time_merge(seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"k{i}" for i in range(12)]
    base = base_of(*[row(k, rng.randint(0, 9), "base") for k in rng.sample(keys, 8)])
    items: list[LogItem] = []
    for instant in range(rng.randint(1, 5)):
        if rng.random() < 0.3:
            items.append(LogDeletes(str(instant), [(k, None) for k in rng.sample(keys, 3)]))
        else:
            records = [row(k, rng.randint(0, 9), f"v{instant}") for k in rng.sample(keys, 4)]
            items.append(LogRecords(str(instant), records))
    expected = by_key(merge_file_slice(base, items, COMMIT, SCHEMA))
    assert streamed(base, items, COMMIT, group_rows=rng.randint(1, 5)) == expected


@pytest.mark.parametrize("seed", range(20))
def test_event_time_records_match_the_record_at_a_time_merge(seed: int) -> None:
    rng = random.Random(seed)
    keys = [f"k{i}" for i in range(10)]
    base = base_of(*[row(k, rng.randint(0, 9), "base") for k in rng.sample(keys, 6)])
    items: list[LogItem] = [
        LogRecords(str(i), [row(k, rng.randint(0, 9), f"v{i}") for k in rng.sample(keys, 4)])
        for i in range(4)
    ]
    assert streamed(base, items, EVENT, group_rows=3) == by_key(merge_file_slice(base, items, EVENT, SCHEMA))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="ab\u00e9", max_size=3), max_size=8), min_size=1, max_size=3))
def test_keys_are_told_distinct_exactly_with_polars_and_without(chunks: list[list[str]]) -> None:
    keys = pa.chunked_array([pa.array(chunk, pa.string()) for chunk in chunks], pa.string())
    expected = len(set(keys.to_pylist())) == len(keys)
    assert keys_all_distinct(keys) is expected
    with mock.patch.dict(sys.modules, {"polars": None}):  # polars missing: Arrow counts
        assert keys_all_distinct(keys) is expected
