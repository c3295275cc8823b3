"""Random table states for property tests of the file-system views and the planners on them:
a timeline (layout 1 or 2, completed and pending commits, deltacommits and compactions, layout 2
completion times out of order, archived instants with and without a known completion time),
listings of base and log files (with junk, 14-digit and non-ASCII-digit instants), replaced
file groups, pending compactions, log compactions and clustering, and savepointed files."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from hypothesis import strategies as st

from maintainer.hudi.file_groups.fsview import PendingOperation, ViewInputs
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import FileInfo

PARTITIONS = ("p=1", "p=2")
FILE_IDS = ("aaaa-0", "bbbb-0", "cccc-0")
ARCHIVED = ("20241231000000000", "20241231000100000")
"""Instants older than the timeline (their files count as committed)."""
JUNK = ("._aaaa-0_0-1-1_20250101000000000.parquet", "x.crc", ".hoodie_partition_metadata", "_SUCCESS")
START = datetime(2025, 1, 1, tzinfo=timezone.utc)


def ts(minute: int) -> str:
    """Instant ``minute`` minutes after 2025-01-01 00:00."""
    moment = START + timedelta(minutes=minute)
    return moment.strftime("%Y%m%d%H%M%S") + "000"


@dataclass(frozen=True)
class RandomTable:
    timeline: Timeline
    listings: dict[str, list[FileInfo]]
    inputs: ViewInputs
    savepointed: frozenset[str]


@dataclass(frozen=True)
class _Archive:
    times: Mapping[str, str]

    def completion_time(self, instant: str) -> str | None:
        return self.times.get(instant)


def _timeline_names(layout: int, kinds: list[str], delays: list[int]) -> list[str]:
    names = []
    for index, (kind, delay) in enumerate(zip(kinds, delays, strict=True)):
        instant = ts(10 * (index + 1))
        action = {"commit": "commit", "delta": "deltacommit", "compaction": "compaction"}[kind.split("-")[0]]
        names += [f"{instant}.{action}.requested", f"{instant}.{action}.inflight"]
        if kind.endswith("-pending"):
            continue
        completed = "commit" if action == "compaction" else action
        done = ts(10 * (index + 1) + delay)
        names.append(f"{instant}_{done}.{completed}" if layout == 2 else f"{instant}.{completed}")
    return names


@st.composite
def random_tables(draw: st.DrawFn) -> RandomTable:
    layout = draw(st.sampled_from((1, 2)))
    count = draw(st.integers(2, 7))
    kinds = draw(
        st.lists(
            st.sampled_from(
                ("commit", "delta", "delta", "delta-pending", "compaction-pending", "compaction")
            ),
            min_size=count,
            max_size=count,
        )
    )
    delays = draw(st.lists(st.integers(0, 25), min_size=count, max_size=count))
    instants = [ts(10 * (i + 1)) for i in range(count)]
    archive = _Archive({ARCHIVED[0]: "20241231000200000"} if draw(st.booleans()) else {})
    timeline = Timeline.from_file_names(
        _timeline_names(layout, kinds, delays),
        layout,
        ".hoodie/timeline" if layout == 2 else ".hoodie",
        archive,
    )
    times = [*ARCHIVED, *instants]
    listings: dict[str, list[FileInfo]] = {}
    names: list[str] = []
    for partition in PARTITIONS:
        entries = [FileInfo(f"{partition}/{junk}", 0, False) for junk in draw(st.sets(st.sampled_from(JUNK)))]
        for file_id in FILE_IDS:
            bases = draw(st.sets(st.sampled_from(times), max_size=4))
            for instant in sorted(bases):
                entries.append(FileInfo(f"{partition}/{file_id}_0-1-2_{instant}.parquet", 100, False))
            for log_index, instant in enumerate(draw(st.lists(st.sampled_from(times), max_size=5))):
                named = instant if layout == 2 or not bases else draw(st.sampled_from(sorted(bases)))
                version = draw(st.integers(1, 2))
                name = f".{file_id}_{named}.log.{version}_{log_index}-2-3"
                entries.append(FileInfo(f"{partition}/{name}", 10 + log_index, False))
        if draw(st.booleans()):  # the full patterns' names: 14 digits, non-ASCII digits, no token
            entries.append(FileInfo(f"{partition}/aaaa-0_0-1-2_20241230000000.parquet", 5, False))
            entries.append(FileInfo(f"{partition}/bbbb-0_0-1-2_{'٢' * 17}.parquet", 5, False))
            entries.append(FileInfo(f"{partition}/.cccc-0_{instants[0]}.log.3", 5, False))
        entries.append(FileInfo(f"{partition}/sub", 0, True))
        listings[partition] = list(dict.fromkeys(entries))
        names += [entry.name for entry in entries]
    keys = [(p, f) for p in PARTITIONS for f in FILE_IDS]
    inputs = ViewInputs(
        replaced_file_groups={k: draw(st.sampled_from(times)) for k in draw(st.sets(st.sampled_from(keys)))},
        pending_compaction=draw(_operations(keys, instants, "compaction")),
        pending_log_compaction=draw(_operations(keys, instants, "logcompaction")),
        pending_clustering=draw(_operations(keys, instants, "clustering")),
        savepointed_files=frozenset(),
    )
    savepointed = frozenset(draw(st.sets(st.sampled_from(names), max_size=4))) if names else frozenset()
    return RandomTable(timeline, listings, inputs, savepointed)


def _operations(
    keys: list[tuple[str, str]], instants: list[str], action: str
) -> st.SearchStrategy[dict[tuple[str, str], PendingOperation]]:
    operation = st.builds(
        PendingOperation,
        st.sampled_from(instants),
        st.just(action),
        st.one_of(st.none(), st.sampled_from([*ARCHIVED, *instants])),
    )
    return st.dictionaries(st.sampled_from(keys), operation, max_size=2)
