"""Compaction strategies: which partitions are considered and how operations are ordered and
cut, as Hudi's ``compact/strategy`` classes do (HUDI.md §5).

* log_file_size (default): slices whose log files total at least the size threshold, largest
  log size first, then bounded by IO;
* log_file_num: slices with at least the threshold number of log files, most log files first,
  then bounded by IO;
* bounded_io: in listing order, accepted until the cumulative TOTAL_IO_MB reaches the target
  (the operation that crosses it is included);
* day_based: the newest ``target_partitions`` partitions parsed as ``yyyy/MM/dd`` (hive-style
  keys stripped), newest first;
* unbounded: everything;
* partition_regex: partitions matching the regular expression (full match), everything in them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from maintainer.artifact.model import CompactSlice
from maintainer.services.compaction.model import SkippedSlice
from maintainer.services.compaction.settings import CompactionSettings, StrategyName
from maintainer.units import human_bytes

_DATE_RE = re.compile(r"^(\d{4})/(\d{1,2})/(\d{1,2})$")


def partition_date(partition: str) -> date | None:
    """``yyyy/MM/dd`` of a partition path, hive-style ``key=`` prefixes stripped."""
    plain = "/".join(part.split("=", 1)[-1] for part in partition.split("/"))
    match = _DATE_RE.match(plain)
    if not match:
        return None
    try:
        return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return None


def filter_partitions(partitions: Sequence[str], settings: CompactionSettings) -> tuple[list[str], list[str]]:
    """(partitions to consider in the strategy's order, sentences about the ones left out)."""
    if settings.strategy is StrategyName.DAY_BASED:
        dated = [(d, p) for p in partitions if (d := partition_date(p)) is not None]
        undated = [p for p in partitions if partition_date(p) is None]
        dated.sort(key=lambda item: item[0], reverse=True)
        chosen = [p for _, p in dated[: settings.target_partitions]]
        notes = []
        if len(dated) > settings.target_partitions:
            notes.append(
                f"day_based: the {settings.target_partitions} newest of {len(dated)} dated partitions "
                f"are considered (target_partitions {settings.target_partitions})"
            )
        if undated:
            notes.append(
                f"day_based: {len(undated)} partition(s) are not yyyy/MM/dd dates and are not considered"
            )
        return chosen, notes
    if settings.strategy is StrategyName.PARTITION_REGEX:
        pattern = re.compile(settings.partition_regex or ".*")
        chosen = [p for p in partitions if pattern.fullmatch(p)]
        left = len(partitions) - len(chosen)
        notes = [f"partition_regex: {left} partition(s) do not match {pattern.pattern!r}"] if left else []
        return chosen, notes
    return list(partitions), []


def _bounded_io(
    ops: Sequence[CompactSlice], settings: CompactionSettings, why: Sequence[str]
) -> tuple[list[CompactSlice], list[SkippedSlice]]:
    remaining = settings.target_io_mb
    chosen: list[CompactSlice] = []
    for index, (op, reason) in enumerate(zip(ops, why, strict=True)):
        remaining -= int(op.total_io_mb)
        chosen.append(op.with_reason(f"{reason}; cumulative IO within target_io_mb {settings.target_io_mb}"))
        if remaining <= 0:
            cut = [
                SkippedSlice(
                    o.partition,
                    o.file_id,
                    f"over target_io_mb {settings.target_io_mb}: left for a later compaction",
                )
                for o in ops[index + 1 :]
            ]
            return chosen, cut
    return chosen, []


def _skip(op: CompactSlice, reason: str) -> SkippedSlice:
    return SkippedSlice(op.partition, op.file_id, reason)


def order_and_filter(
    ops: Sequence[CompactSlice], settings: CompactionSettings
) -> tuple[list[CompactSlice], list[SkippedSlice]]:
    """(operations in the order the strategy gives them, operations it leaves out and why)."""
    strategy = settings.strategy
    if strategy is StrategyName.LOG_FILE_SIZE:
        threshold = settings.log_file_size_threshold
        keep = [op for op in ops if op.log_bytes >= threshold]
        limit = human_bytes(threshold)
        dropped = [
            _skip(op, f"log files {human_bytes(op.log_bytes)} below log_file_size_threshold {limit}")
            for op in ops
            if op.log_bytes < threshold
        ]
        keep.sort(key=lambda op: op.log_bytes, reverse=True)
        why = [
            f"log files {human_bytes(op.log_bytes)} >= threshold {limit} (largest log size first)"
            for op in keep
        ]
        chosen, cut = _bounded_io(keep, settings, why)
        return chosen, dropped + cut
    if strategy is StrategyName.LOG_FILE_NUM:
        threshold = settings.log_file_num_threshold
        keep = [op for op in ops if len(op.log_files) >= threshold]
        dropped = [
            _skip(op, f"{len(op.log_files)} log file(s) below log_file_num_threshold {threshold}")
            for op in ops
            if len(op.log_files) < threshold
        ]
        keep.sort(key=lambda op: len(op.log_files), reverse=True)
        why = [
            f"{len(op.log_files)} log file(s) >= threshold {threshold} (most log files first)" for op in keep
        ]
        chosen, cut = _bounded_io(keep, settings, why)
        return chosen, dropped + cut
    if strategy is StrategyName.BOUNDED_IO:
        return _bounded_io(list(ops), settings, [f"{int(op.total_io_mb)} MB of IO" for op in ops])
    if strategy is StrategyName.DAY_BASED:
        ordered = sorted(ops, key=lambda op: partition_date(op.partition) or date.min, reverse=True)
        return [
            op.with_reason(f"partition {op.partition} is among the newest {settings.target_partitions}")
            for op in ordered
        ], []
    if strategy is StrategyName.PARTITION_REGEX:
        return [
            op.with_reason(f"partition {op.partition} matches {settings.partition_regex!r}") for op in ops
        ], []
    return [op.with_reason("unbounded strategy: every slice with log files") for op in ops], []
