"""Storage requests of a plan, listing the table from its metadata table's ``files`` partition
(the default with ``metadata_table: sync``) against listing every partition from storage.

Counts LIST requests (directory listings, by table) and GET requests (whole-file reads) made
while planning clean, compaction, archive and a savepoint on each fixture table that has a
metadata table; on an object store each is one round trip. Needs the fixtures
(``MAINTAINER_HUDI_FIXTURES`` or ``../shared/fixtures/hudi-rs``).

    .venv/bin/python bench/metadata_listing.py [--fixture NAME ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import maintainer.services.registry  # noqa: F401  (installs the service catalog TableSpec.of reads)
from maintainer.datagen.generator import DatagenSpec, generate
from maintainer.datagen.workload import WorkloadSpec
from maintainer.planning import builder
from maintainer.planning.builder import TableRequest, build_plan
from maintainer.project.models import TableSpec
from maintainer.services.archive.settings import ArchiveSpec
from maintainer.services.clean.settings import CleanSpec
from maintainer.services.compaction.settings import CompactionSpec, CompactionTrigger
from maintainer.storage import Storage
from tests.support.fixtures import metadata_fixture_names, unpack

SERVICES = ("compaction", "clean", "archive")


@contextmanager
def counted() -> Iterator[Counter[str]]:
    """LIST and GET requests made meanwhile, by kind and by table (data or metadata)."""
    counts: Counter[str] = Counter()
    list_one, list_many, read = Storage.list_dir_columns, Storage.list_dirs_columns, Storage.read_bytes

    def where(storage: Storage) -> str:
        return "metadata" if "/.hoodie/metadata" in storage.base_uri else "data"

    def one(self: Storage, path: str = "", *, sizes: bool = True) -> Any:
        counts[f"LIST {where(self)}"] += 1
        return list_one(self, path, sizes=sizes)

    def many(self: Storage, paths: Iterable[str], *, sizes: bool = True) -> Any:
        chosen = list(paths)  # each folder is listed through list_dir_columns (counted there)
        return list_many(self, chosen, sizes=sizes)

    def get(self: Storage, path: str) -> bytes:
        counts[f"GET {where(self)}"] += 1
        return read(self, path)

    Storage.list_dir_columns, Storage.list_dirs_columns, Storage.read_bytes = one, many, get  # type: ignore[method-assign]
    try:
        yield counts
    finally:
        Storage.list_dir_columns, Storage.list_dirs_columns, Storage.read_bytes = list_one, list_many, read  # type: ignore[method-assign]


def plan(path: Path) -> None:
    spec = TableSpec.of(
        name="t",
        path=str(path),
        manifest="t.yml",
        line=1,
        clean=CleanSpec(commits_retained=1),
        compaction=CompactionSpec(trigger=CompactionTrigger(max_delta_commits=1)),
        archive=ArchiveSpec(keep_min_commits=2, keep_max_commits=3),
    )
    build_plan("p", "dev", [TableRequest(spec, SERVICES)], {}, datetime.now(timezone.utc), threads=1)


def storage_listing(*args: Any) -> Any:
    """``open_from_metadata_table``'s stand-in: the table listed from storage instead."""
    storage, _, _, request, services, now, *worked_out = args
    return builder.open_for_services(
        storage, request, services, now, worked_out=worked_out[0] if worked_out else None
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--fixture", action="append", help="fixture name (default: all with a metadata table)"
    )
    parser.add_argument(
        "--generated",
        type=int,
        metavar="PARTITIONS",
        help="also a generated v8 MOR table with a metadata table and this many partitions",
    )
    args = parser.parse_args()
    names = args.fixture or metadata_fixture_names()
    with tempfile.TemporaryDirectory() as directory:
        print(f"{'table':58} {'parts':>5} | via metadata: LIST data, mdt; GET data, mdt | via storage")
        tables = [(name, unpack(name, Path(directory)).path) for name in names]
        if args.generated:
            tables.append(
                (f"generated ({args.generated} partitions)", generated(Path(directory), args.generated))
            )
        for name, path in tables:
            print_counts(name, path)


def generated(directory: Path, partitions: int) -> Path:
    rows = partitions * 4
    workload = WorkloadSpec(partitions=partitions, file_groups=1, commits=4, rows_per_commit=rows)
    spec = DatagenSpec("t", "mor", 8, workload, metadata_table=True)
    return Path(generate(str(directory / "generated"), spec).path.removeprefix("file://"))


def print_counts(name: str, path: Path) -> None:
    with counted() as via_metadata:
        plan(path)
    real = builder.open_from_metadata_table
    builder.open_from_metadata_table = storage_listing  # type: ignore[assignment]
    try:
        with counted() as via_storage:
            plan(path)
    finally:
        builder.open_from_metadata_table = real
    partitions = len([p for p in path.rglob(".hoodie_partition_metadata*") if ".hoodie/" not in str(p)])
    keys = ("LIST data", "LIST metadata", "GET data", "GET metadata")
    via_md = " ".join(f"{via_metadata[k]:>4}" for k in keys)
    via_st = " ".join(f"{via_storage[k]:>4}" for k in keys)
    print(f"{name:58} {partitions:>5} | {via_md:>42} | {via_st}")


if __name__ == "__main__":
    main()
