"""The completed clustering's replacecommit against Hudi 1.1.1's own (the v9 fixture
``sample_table_mor_avro_v9_txns_simple_meta`` ran ``run_clustering``), field by field, and the
v6 JSON layout against the v6 fixture's replacecommit."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import fastavro
import pytest

from maintainer.executors.clustering.commit import clustering_commit_metadata, encode_replace_commit
from maintainer.executors.clustering.group import new_file_stat
from maintainer.hudi.payloads import WriteStat
from maintainer.hudi.table.snapshot import load_config
from maintainer.storage import Storage
from tests.support import fixtures as fx

V9_TXNS = [n for n in fx.fixture_names() if "_v9_txns_" in n and not n.endswith("_overwrite")]
"""Hudi 1.1.1 tables that ran ``CALL run_clustering`` (defaults)."""
V6 = "sample_table_cow_v6_simplekeygen_nonhivestyle_overwritetable"
V6_REPLACE = ".hoodie/20240707001303088.replacecommit"


def _avro_record(data: bytes) -> dict[str, Any]:
    (record,) = list(fastavro.reader(io.BytesIO(data)))
    return cast(dict[str, Any], record)


def _ours_like(theirs: dict[str, Any]) -> list[WriteStat]:
    """Our write stats for the fixture's new files (same ids, paths, rows and sizes)."""
    return [
        new_file_stat(s["partitionPath"], s["fileId"], s["path"], s["numWrites"], s["fileSizeInBytes"], 0.0)
        for stats in theirs["partitionToWriteStats"].values()
        for s in stats
    ]


def _without_times(record: dict[str, Any]) -> dict[str, Any]:
    for stats in record["partitionToWriteStats"].values():
        for stat in stats:
            stat["runtimeStats"]["totalCreateTime"] = 0
    return record


def _clustering_commits(table: Path) -> list[Path]:
    """The completed replacecommits of the table that finished a clustering."""
    found = []
    for path in sorted((table / ".hoodie/timeline").glob("*_*.replacecommit")):
        if _avro_record(path.read_bytes())["operationType"] == "CLUSTER":
            found.append(path)
    return found


@pytest.mark.fixtures
@pytest.mark.parametrize("name", V9_TXNS)
def test_the_v9_replacecommits_are_hudis_field_by_field(
    name: str, fixture_table: Callable[[str], fx.FixtureTable]
) -> None:
    table = fixture_table(name).path
    commits = _clustering_commits(table)
    assert commits, f"{name} ran a clustering"
    config = load_config(Storage(str(table)))
    for commit in commits:
        theirs = _avro_record(commit.read_bytes())
        replaced = {p: list(ids) for p, ids in theirs["partitionToReplaceFileIds"].items()}
        metadata = clustering_commit_metadata(_ours_like(theirs), replaced, theirs["extraMetadata"]["schema"])
        ours = _avro_record(encode_replace_commit(metadata, config))
        assert _without_times(ours) == _without_times(theirs), commit.name
        assert list(ours) == list(theirs)


@pytest.mark.fixtures
def test_the_v6_replacecommit_is_json_in_hudis_layout(
    fixture_table: Callable[[str], fx.FixtureTable],
) -> None:
    table = fixture_table(V6).path
    theirs = json.loads((table / V6_REPLACE).read_text())
    replaced = {"30": ["a-0"]}
    metadata = clustering_commit_metadata(_ours_like(theirs), replaced, theirs["extraMetadata"]["schema"])
    ours = json.loads(encode_replace_commit(metadata, load_config(Storage(str(table)))))
    assert list(ours) == list(theirs)
    assert ours["operationType"] == "CLUSTER" and ours["partitionToReplaceFileIds"] == replaced
    (their_stat,) = theirs["partitionToWriteStats"]["30"]
    (our_stat,) = ours["partitionToWriteStats"]["30"]
    assert list(our_stat) == list(their_stat)
    their_stat["runtimeStats"]["totalCreateTime"] = our_stat["runtimeStats"]["totalCreateTime"]
    assert our_stat == their_stat


def test_output_ids_are_not_listed_as_replaced() -> None:
    stat = new_file_stat("p", "kept-0", "p/kept-0_0-1-0_1.parquet", 3, 10, 0.0)
    metadata = clustering_commit_metadata([stat], {"p": ["kept-0", "old-0"], "q": []}, "{}")
    assert metadata.partition_to_replace_file_ids == {"p": ("old-0",)}
    assert metadata.extra_metadata == {"schema": "{}"}
