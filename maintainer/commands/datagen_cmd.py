"""``maintainer datagen PATH``: write a real Hudi table for demos, tests and benchmarks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from maintainer.commands.options import table_storage_options
from maintainer.console import stdout
from maintainer.datagen.generator import LOCAL_WRITERS, DatagenSpec, generate, write_expected
from maintainer.datagen.workload import WorkloadSpec
from maintainer.errors import UsageError
from maintainer.project.profiles import SparkSettings
from maintainer.spark.session import create_session, scratch_spark_log
from maintainer.spark.tasks import SparkRunner
from maintainer.storage import Storage

HISTORY_ROW_LIMIT = 200_000
SPARK_ROW_THRESHOLD = 1_000_000


@click.command("datagen")
@click.argument("path")
@click.option("--name", default="trips", show_default=True, help="hoodie.table.name of the new table.")
@click.option(
    "--table-type",
    type=click.Choice(["cow", "mor"]),
    default="cow",
    show_default=True,
    help="Copy-on-write (updates rewrite base files) or merge-on-read (updates go to log files).",
)
@click.option(
    "--table-version",
    type=click.Choice(["6", "8"]),
    default="6",
    show_default=True,
    help="6: Hudi 0.14/0.15 layout (.hoodie/, JSON commits); 8: Hudi 1.x (.hoodie/timeline/, Avro).",
)
@click.option(
    "--partitions",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Number of partitions (city=...); 0 writes a non-partitioned table.",
)
@click.option(
    "--file-groups",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="File groups per partition.",
)
@click.option(
    "--commits",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Number of writes; the first inserts, later ones upsert and delete.",
)
@click.option(
    "--rows-per-commit",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    help="Rows each write changes.",
)
@click.option(
    "--update-ratio",
    type=click.FloatRange(0, 1),
    default=0.3,
    show_default=True,
    help="Share of a later write's rows that update existing keys.",
)
@click.option(
    "--delete-ratio",
    type=click.FloatRange(0, 1),
    default=0.05,
    show_default=True,
    help="Share of a later write's rows that delete existing keys.",
)
@click.option(
    "--failed-write",
    is_flag=True,
    help="Leave the last write inflight with its files, markers and heartbeat, as a crashed writer does.",
)
@click.option(
    "--failed-write-at",
    type=click.IntRange(0),
    metavar="N",
    help="Leave write N (0-based) inflight while the later writes complete: a concurrent writer "
    "that died (or still runs) among younger commits.",
)
@click.option(
    "--metadata-table",
    is_flag=True,
    help="Keep a metadata table (its files partition) as Hudi 1.0's writers do (table version 8).",
)
@click.option("--seed", type=int, default=42, show_default=True, help="Seed of the generated data.")
@table_storage_options()
@click.option(
    "--engine",
    type=click.Choice(["auto", "local", "spark"]),
    default="auto",
    show_default=True,
    help="Where file groups are written: in this process (local), one Spark task per file group "
    f"(spark, a local[*] session), or auto: spark above {SPARK_ROW_THRESHOLD:,} rows.",
)
@click.option(
    "--expected",
    "expected_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to write the expected rows, a local file (default: PATH.expected.jsonl beside a "
    "local table; for a table on an object store or HDFS, NAME.expected.jsonl in the current "
    "directory, NAME being PATH's last segment: nothing is written outside the table there).",
)
def command(
    path: str,
    name: str,
    table_type: str,
    table_version: str,
    partitions: int,
    file_groups: int,
    commits: int,
    rows_per_commit: int,
    update_ratio: float,
    delete_ratio: float,
    failed_write: bool,
    failed_write_at: int | None,
    metadata_table: bool,
    seed: int,
    engine: str,
    expected_path: Path | None,
    storage_options: dict[str, Any],
) -> int:
    """Write a real Hudi table at PATH, as Hudi's Spark writer would, plus the rows a correct
    reader must return as of each completed commit (one JSON line per commit:
    {"instant": ..., "rows": [...]}).

    \b
    Examples:
      maintainer datagen /tmp/lake/trips --table-type mor --commits 20
      maintainer datagen /tmp/lake/events --table-version 8 --partitions 0 --failed-write
      maintainer datagen /tmp/lake/busy --table-type mor --commits 8 --failed-write-at 3
      maintainer datagen /tmp/lake/indexed --table-version 8 --metadata-table
    """  # fmt: skip
    if update_ratio + delete_ratio > 1:
        raise UsageError("--update-ratio plus --delete-ratio must not exceed 1")
    if failed_write_at is not None and failed_write_at >= commits:
        raise UsageError(f"--failed-write-at {failed_write_at} is not a write: --commits is {commits}")
    if metadata_table and table_version != "8":
        raise UsageError("--metadata-table needs --table-version 8")
    storage = Storage(path, storage_options)
    if storage.exists(".hoodie/hoodie.properties"):
        raise UsageError(f"{path} already holds a Hudi table; datagen only writes new tables")
    workload = WorkloadSpec(
        partitions, file_groups, commits, rows_per_commit, update_ratio, delete_ratio, seed
    )
    spec = DatagenSpec(
        name, table_type, int(table_version), workload, failed_write, failed_write_at, metadata_table
    )
    rows = commits * rows_per_commit
    use_spark = engine == "spark" or (engine == "auto" and rows > SPARK_ROW_THRESHOLD)
    runner = _spark_runner() if use_spark else LOCAL_WRITERS
    table = generate(
        path, spec, runner=runner, keep_history=rows <= HISTORY_ROW_LIMIT, storage_options=storage_options
    )
    target = expected_path or default_expected_path(table.path, storage.is_local)
    write_expected(table, target)
    failed = f", write {table.failed_instant} left inflight" if table.failed_instant else ""
    stdout.print(
        f"wrote {table.config.table_type.value} table {name!r} (version {table.config.version}) "
        f"at {table.path}: {len(table.completed)} commits{failed}\nexpected rows: {target}"
    )
    return 0


def default_expected_path(table_path: str, is_local: bool) -> Path:
    """Beside a local table; in the current directory for a remote one, so that datagen writes
    no object outside the table's prefix (and never a local path made from a URI)."""
    if is_local:
        return Path(f"{table_path}.expected.jsonl")
    name = table_path.rstrip("/").rsplit("/", 1)[-1]
    return Path.cwd() / f"{name}.expected.jsonl"


def _spark_runner() -> SparkRunner:
    """A local session whose JVM console output goes to a log file, said where."""
    log = scratch_spark_log()
    stdout.print(f"starting Spark (local); its console output: {escape(str(log))}")
    return SparkRunner(create_session(SparkSettings(), log_path=log))
