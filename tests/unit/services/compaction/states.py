"""Synthetic merge-on-read table states for the compaction planner tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from maintainer.datagen.layout import TableLayout, table_properties
from maintainer.hudi.config.properties import TableConfig, table_config_from_properties
from maintainer.hudi.file_groups.fsview import ViewInputs, build_view
from maintainer.hudi.instants.timeline import Timeline
from maintainer.services.compaction.planner import CompactionInputs
from maintainer.storage import FileInfo

MB = 1024 * 1024


def ts(n: int) -> str:
    """Instant n: 2025-01-01 00:00:00.000 + n minutes."""
    return f"20250101{n // 60:02d}{n % 60:02d}00000"


def base(file_id: str, n: int) -> str:
    return f"{file_id}_0-1-{n}_{ts(n)}.parquet"


def log(file_id: str, n: int, version: int = 1) -> str:
    """Layout 1: named by the slice's base instant; layout 2: by the deltacommit."""
    return f".{file_id}_{ts(n)}.log.{version}_0-1-{n}"


def completed(n: int, action: str = "deltacommit", layout: int = 1, done: int | None = None) -> list[str]:
    names = [
        f"{ts(n)}.{action}.requested",
        f"{ts(n)}.inflight" if action == "commit" else f"{ts(n)}.{action}.inflight",
    ]
    final = "commit" if action == "compaction" else action
    if layout == 1:
        return [*names, f"{ts(n)}.{final}"]
    return [*names, f"{ts(n)}_{ts(done if done is not None else n)}.{final}"]


def pending(n: int, action: str = "deltacommit", state: str = "inflight") -> list[str]:
    names = [f"{ts(n)}.{action}.requested"]
    if state == "inflight":
        names.append(f"{ts(n)}.{action}.inflight")
    return names


def timeline(names: Iterable[str], layout: int = 1) -> Timeline:
    return Timeline.from_file_names(list(names), layout, ".hoodie" if layout == 1 else ".hoodie/timeline")


def deltas(*ns: int, layout: int = 1) -> list[str]:
    return [name for n in ns for name in completed(n, "deltacommit", layout)]


def config(version: int = 6, table_type: str = "mor") -> TableConfig:
    return table_config_from_properties(table_properties(TableLayout("t", table_type, version, True)))


def state(
    names: Iterable[str],
    files: Mapping[str, Iterable[tuple[str, int]]],
    layout: int = 1,
    inputs: ViewInputs | None = None,
    table_type: str = "mor",
) -> CompactionInputs:
    """``files``: partition -> (file name, size)."""
    tl = timeline(names, layout)
    listings = {
        p: [FileInfo(f"{p}/{name}", size, False) for name, size in entries] for p, entries in files.items()
    }
    view = build_view(tl, listings, inputs)
    return CompactionInputs(tl, view, config(6 if layout == 1 else 8, table_type))
