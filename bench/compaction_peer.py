"""Benchmark: maintainer's compaction beside a peer, delta-rs ``DeltaTable.optimize.compact``.

The table is bench/compaction.py's (``--rows`` rows inserted by a first commit, then half updates
and half inserts through log files; generated before anything is timed). Maintainer compacts it
(plan + ``run_compaction`` on ``--workers`` threads); delta-rs then rewrites the same rows (the
compacted rows, written beforehand with ``write_deltalake`` into as many files as the compaction
read, not timed) into as many files as the compaction wrote, with the same codec and level, the
same number of concurrent tasks and a target size that bins the inputs into that many files.
Each round runs one then the other on fresh copies; best wall and process CPU times of
``--rounds`` rounds are compared.

Two tables are measured: Hudi's default codec (gzip, zlib level 6, which maintainer deflates
with libdeflate and delta-rs with its own Rust deflate: the generated base files'
codec, which compaction keeps) and the same table generated with its base files in ``--codec``
(default zstd, at parquet-mr's level 3), whose new base files keep that codec.
Goal (issue 17): within 1.5x of delta-rs with gzip, ahead of it with the table's other codec.
``--gzip-level N`` runs the gzip comparison at zlib level N on both sides (maintainer: the
manifest's ``compaction.parquet_compression: gzip:N``, which gzip base files take).

deltalake is a benchmark-only extra: ``.venv/bin/pip install '.[bench]'`` (or ``deltalake>=1.0``).

    .venv/bin/python bench/compaction_peer.py [--rows 1400000] [--rounds 3] [--codec zstd|snappy]
        [--gzip-level 6] [--dir DIR]
"""

from __future__ import annotations

import argparse
import functools
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pyarrow as pa
import pyarrow.parquet as pq
from compaction import Measured, compact, generate_table, mb, warm_up_imports

from maintainer.hudi.parquet import basefile
from maintainer.tasks import ThreadPoolRunner

BLOOM = b"org.apache.hudi.bloomfilter"
HUDI_LEVELS = {"gzip": 6, "zstd": 3}
"""The levels Hudi's writer uses (Hadoop's zlib default; parquet-mr's zstd default)."""


def require_deltalake() -> Any:
    try:
        import deltalake
    except ImportError:
        sys.exit(
            "bench/compaction_peer.py needs deltalake (a benchmark-only extra):\n"
            "    .venv/bin/pip install '.[bench]'     (or: .venv/bin/pip install 'deltalake>=1.0')"
        )
    return deltalake


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_400_000, help="rows of the first commit")
    parser.add_argument("--table-version", type=int, default=8, choices=(6, 8))
    parser.add_argument("--partitions", type=int, default=10)
    parser.add_argument("--file-groups", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="threads (maintainer) and tasks (delta-rs)")
    parser.add_argument("--rounds", type=int, default=3, help="maintainer then delta-rs, N times: best of N")
    parser.add_argument(
        "--codec", default="zstd", choices=("zstd", "snappy"), help="the second table's codec"
    )
    parser.add_argument(
        "--gzip-level", type=int, default=6,
        help="zlib level of the gzip comparison, both sides (maintainer: parquet_compression gzip:N)",
    )  # fmt: skip
    parser.add_argument("--dir", type=Path, help="keep the tables here (default: a temporary directory)")
    return parser.parse_args()


def generate_in(args: argparse.Namespace, path: Path, codec: str, level: int | None) -> None:
    """bench/compaction.py's table, its base files written in ``codec`` (same seed: same rows)."""
    shutil.rmtree(path, ignore_errors=True)
    # datagen writes with the default settings: their codec is patched while it runs (threads)
    codec_settings = functools.partial(basefile.ParquetSettings, compression=codec, compression_level=level)
    with mock.patch.object(basefile, "ParquetSettings", codec_settings):
        generate_table(args, path)


def file_codec(path: Path) -> str:
    return str(pq.ParquetFile(path).metadata.row_group(0).column(0).compression).lower()


@dataclass(frozen=True)
class Peer:
    wall: float
    cpu: float
    files_added: int
    files_removed: int
    output_bytes: int


def writer_properties(deltalake: Any, codec: str, level: int | None) -> Any:
    return deltalake.WriterProperties(
        compression=codec.upper(),
        compression_level=level,
        data_page_size_limit=1 << 20,
        dictionary_page_size_limit=1 << 20,
    )


def write_delta(deltalake: Any, path: Path, outputs: list[pa.Table], parts: list[int], props: Any) -> int:
    """The compacted rows as a Delta table of ``sum(parts)`` files (output i in parts[i] files)."""
    shutil.rmtree(path, ignore_errors=True)
    for output, count in zip(outputs, parts, strict=True):
        rows = output.replace_schema_metadata(None)
        step = -(-rows.num_rows // count)
        for start in range(0, rows.num_rows, step):
            deltalake.write_deltalake(
                str(path), rows.slice(start, step), mode="append", writer_properties=props
            )
    return sum(f.stat().st_size for f in path.glob("*.parquet"))


def optimize(deltalake: Any, source: Path, path: Path, target_size: int, tasks: int, props: Any) -> Peer:
    shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(source, path)
    before = {f.name for f in path.glob("*.parquet")}
    started, cpu_started = time.perf_counter(), time.process_time()
    metrics = deltalake.DeltaTable(str(path)).optimize.compact(
        target_size=target_size, max_concurrent_tasks=tasks, writer_properties=props
    )
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    added = sum(f.stat().st_size for f in path.glob("*.parquet") if f.name not in before)
    return Peer(wall, cpu, metrics["numFilesAdded"], metrics["numFilesRemoved"], added)


def fresh_compaction(source: Path, path: Path, workers: int, compression: str | None) -> Measured:
    shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(source, path)
    return compact(path, ThreadPoolRunner(workers), compression)


def compare(
    deltalake: Any, args: argparse.Namespace, hudi_source: Path, root: Path, codec: str, level: int | None
) -> None:
    name = f"{codec} (level {level})" if level is not None else codec
    props = writer_properties(deltalake, codec, level)
    hudi, delta_source, delta = root / f"mor-{codec}", root / f"delta-{codec}-source", root / f"delta-{codec}"
    ours: list[Measured] = []
    peers: list[Peer] = []
    target_size = 0
    for index in range(args.rounds):
        manifest = f"{codec}:{level}" if level is not None else None  # the level for the table's codec
        run = fresh_compaction(hudi_source, hudi, args.workers, manifest)
        ours.append(run)
        written = [hudi / (s.path or "") for s in run.stats]
        codecs = {file_codec(p) for p in written}
        if codecs != {codec}:
            print(f"  note: maintainer wrote {', '.join(sorted(codecs))}, not the table's {codec}")
        if index == 0:
            outputs = [pq.read_table(p) for p in written]
            parts = [(1 if op.base_file else 0) + len(op.log_files) for op in run.ops]
            delta_in = write_delta(deltalake, delta_source, outputs, parts, props)
            # bins of the input files as many as the compaction's outputs (inputs of near-equal size)
            target_size = int(delta_in / len(outputs) * 1.25)
            print(f"{name}: maintainer compacts {run.operations} slices ({sum(parts)} files, "
                  f"{mb(run.input_bytes)}) into {len(written)} files; delta-rs {sum(parts)} files of the "
                  f"same rows ({mb(delta_in)}), target size {mb(target_size)}")  # fmt: skip
        peers.append(optimize(deltalake, delta_source, delta, target_size, args.workers, props))
        print(f"  round {index + 1}: maintainer {run.wall:.2f} s wall, {run.cpu:.2f} s CPU; "
              f"delta-rs {peers[-1].wall:.2f} s wall, {peers[-1].cpu:.2f} s CPU")  # fmt: skip
    wall, cpu = min(r.wall for r in ours), min(r.cpu for r in ours)
    peer_wall, peer_cpu = min(p.wall for p in peers), min(p.cpu for p in peers)
    peer = peers[0]
    best = f"best of {args.rounds}" if args.rounds > 1 else "one round"
    goal = "goal <= 1.5x" if codec == "gzip" else "goal < 1x"
    blooms = sum(len((pq.ParquetFile(hudi / (s.path or "")).metadata.metadata or {}).get(BLOOM, b""))
                 for s in ours[-1].stats)  # fmt: skip
    print(f"  maintainer: {wall:.2f} s wall, {cpu:.2f} s CPU ({best}), {mb(ours[0].output_bytes)} out "
          f"(of which {mb(blooms)} bloom filters in the footers, as Hudi writes them)")  # fmt: skip
    print(f"  delta-rs:   {peer_wall:.2f} s wall, {peer_cpu:.2f} s CPU ({best}), {peer.files_removed} -> "
          f"{peer.files_added} files, {mb(peer.output_bytes)} out")  # fmt: skip
    print(f"  ratio maintainer / delta-rs, {name}: {wall / peer_wall:.2f}x wall, {cpu / peer_cpu:.2f}x CPU "
          f"({goal})")  # fmt: skip


def main() -> None:
    args = parse_args()
    deltalake = require_deltalake()
    root = args.dir or Path(tempfile.mkdtemp(prefix="bench-compaction-peer-"))
    source = root / "generated"
    shutil.rmtree(source, ignore_errors=True)
    generate_table(args, source)
    other = root / f"generated-{args.codec}"
    generate_in(args, other, args.codec, HUDI_LEVELS.get(args.codec))
    updated = int(args.rows * 0.5)
    print(f"table: MOR v{args.table_version}, {args.rows + updated:,} rows, {updated:,} updated through "
          f"log files, {args.partitions * args.file_groups} file groups; {args.workers} threads/tasks; "
          f"deltalake {deltalake.__version__}, pyarrow {pa.__version__}")  # fmt: skip
    warm_up_imports()
    compare(deltalake, args, source, root, "gzip", args.gzip_level)
    compare(deltalake, args, other, root, args.codec, HUDI_LEVELS.get(args.codec))
    if args.dir is None:
        shutil.rmtree(root)


if __name__ == "__main__":
    pa.set_cpu_count(2)
    main()
