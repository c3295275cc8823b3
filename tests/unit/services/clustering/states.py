"""Synthetic table states for the clustering planner tests (timeline layout 2 by default)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from maintainer.artifact.model import ClusterGroup, ClusterSlice, SliceFile
from maintainer.datagen.layout import TableLayout, table_properties
from maintainer.hudi.config.properties import TableConfig, table_config_from_properties
from maintainer.hudi.file_groups.fsview import ViewInputs, build_view
from maintainer.hudi.instants.timeline import Timeline
from maintainer.hudi.payloads import RequestedReplaceMetadata
from maintainer.services.clustering.model import ClusteringInputs
from maintainer.services.clustering.payload import requested_replace_metadata
from maintainer.services.clustering.settings import ClusteringSpec
from maintainer.storage import FileInfo

MB = 1024 * 1024
TABLE_URI = "file:/data/t"


def ts(n: int) -> str:
    """Instant n: 2025-01-01 00:00:00.000 + n minutes."""
    return f"20250101{n // 60:02d}{n % 60:02d}00000"


def base(file_id: str, n: int) -> str:
    return f"{file_id}_0-1-{n}_{ts(n)}.parquet"


def log(file_id: str, n: int, version: int = 1) -> str:
    """Layout 1: named by the slice's base instant; layout 2: by the deltacommit."""
    return f".{file_id}_{ts(n)}.log.{version}_0-1-{n}"


def completed(n: int, action: str = "commit", layout: int = 2, done: int | None = None) -> list[str]:
    """A completed instant; ``clustering`` completes as a replacecommit, as in Hudi."""
    first = f"{ts(n)}.inflight" if action == "commit" else f"{ts(n)}.{action}.inflight"
    names = [f"{ts(n)}.{action}.requested", first]
    final = {"compaction": "commit", "clustering": "replacecommit"}.get(action, action)
    if layout == 1:
        return [*names, f"{ts(n)}.{final}"]
    return [*names, f"{ts(n)}_{ts(done if done is not None else n)}.{final}"]


def pending(n: int, action: str = "clustering", state: str = "requested") -> list[str]:
    names = [f"{ts(n)}.{action}.requested"]
    if state == "inflight":
        names.append(f"{ts(n)}.{action}.inflight")
    return names


def commits(*ns: int, action: str = "commit", layout: int = 2) -> list[str]:
    return [name for n in ns for name in completed(n, action, layout)]


def config(version: int = 8, table_type: str = "cow") -> TableConfig:
    return table_config_from_properties(table_properties(TableLayout("t", table_type, version, True)))


def inputs(
    names: Iterable[str],
    files: Mapping[str, Iterable[tuple[str, int]]],
    *,
    layout: int = 2,
    table_type: str = "cow",
    view_inputs: ViewInputs | None = None,
    requested: Mapping[str, RequestedReplaceMetadata | None] | None = None,
    written: Mapping[str, Iterable[str]] | None = None,
    unreadable: Mapping[str, str] | None = None,
) -> ClusteringInputs:
    """``files``: partition -> (file name, size); ``written``: commit time -> partitions."""
    tl = Timeline.from_file_names(list(names), layout, ".hoodie" if layout == 1 else ".hoodie/timeline")
    listings = {
        p: [FileInfo(f"{p}/{name}" if p else name, size, False) for name, size in entries]
        for p, entries in files.items()
    }
    return ClusteringInputs(
        tl,
        build_view(tl, listings, view_inputs),
        config(6 if layout == 1 else 8, table_type),
        TABLE_URI,
        requested or {},
        {t: f"sha-{t}" for t in requested or {}},
        unreadable or {},
        {t: frozenset(ps) for t, ps in (written or {}).items()},
    )


def cluster_plan(
    partition: str, file_ids: Iterable[str], n: int = 1, missing: Iterable[str] = (), version: int = 8
) -> RequestedReplaceMetadata:
    """A requested CLUSTER payload of one group of the base files ``base(id, n)``."""
    slices = tuple(
        ClusterSlice(
            file_id=f, base_instant=ts(n), base_file=SliceFile(name=base(f, n), size=MB), log_files=()
        )
        for f in file_ids
    )
    group = ClusterGroup(partition=partition, slices=slices, num_output_file_groups=1, metrics={})
    return requested_replace_metadata([group], ClusteringSpec(), TABLE_URI, version, tuple(missing))


def overwrite_plan() -> RequestedReplaceMetadata:
    """The requested payload of an insert_overwrite (no clustering plan)."""
    return RequestedReplaceMetadata(
        operation_type="INSERT_OVERWRITE", clustering_plan=None, extra_metadata={}
    )
