"""S3 requests of ``maintainer plan`` and ``maintainer apply`` on a real S3 server (moto's, on
127.0.0.1), by method, against a floor counted in the same run.

``datagen`` writes a merge-on-read table (100 partitions by default, a few commits with logs, the
last write failed) into a bucket; a project whose target has the server's ``storage_options``
plans and applies rollback, compaction (every slice with logs), clean (what the compaction
superseded) and archive, in this process (``engine: local``). Each request the server served is
counted from its log: GET (whole objects), LIST (GET with ``list-type``), HEAD, PUT, POST,
DELETE.

Floors (the fewest requests a tool that knew the table's state could send):
- plan: one GET of ``hoodie.properties``, one LIST of the timeline, one LIST per partition the
  planners need (here every partition: a compaction of every slice, a full clean);
- apply: one GET of ``hoodie.properties``, one LIST of the timeline, one GET per input file of the
  compaction (base and log files), one PUT or DELETE per file the apply touched (created,
  changed or deleted: the bucket's listing before and after, by key and ETag).
Files touched are what a reviewer sees changed; requests per file touched is the cost of each.

    .venv/bin/python bench/s3_requests.py [--partitions 100] [--commits 4] [--no-metadata-table]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maintainer.cli import main
from tests.support.s3_server import S3Request, S3Server, moto_s3_server

BUCKET = "bench"
TABLE_PREFIX = "lake/t"
SERVICES = """\
    rollback: {min_age: 0s}
    compaction: {trigger: {max_delta_commits: 1}}
    clean: {policy: keep_latest_file_versions, file_versions_retained: 1, commits_retained: 1}
    archive: {keep_min_commits: 2, keep_max_commits: 3}"""
METHODS = ("GET", "LIST", "HEAD", "PUT", "POST", "DELETE")


def kind(request: S3Request) -> str:
    return "LIST" if request.method == "GET" and "list-type=" in request.path else request.method


def by_method(sent: list[S3Request]) -> Counter[str]:
    return Counter(kind(r) for r in sent)


def what(request: S3Request) -> str:
    """What a GET or HEAD was for, by the object's place in the table."""
    path = request.path
    if "/.hoodie/metadata/" in path:
        return "metadata table"
    if "/.hoodie/" in path:
        return "hoodie.properties" if path.endswith("/hoodie.properties") else "timeline and .hoodie"
    if ".log." in path:
        return "log files"
    return "base files" if path.endswith(".parquet") else "other"


def reads_by_what(sent: list[S3Request]) -> str:
    counts = Counter(f"{kind(r)} {what(r)}" for r in sent if kind(r) in ("GET", "HEAD"))
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items()))


def objects(server: S3Server) -> dict[str, str]:
    """Key -> ETag of every object in the bucket."""
    pages = server.client().get_paginator("list_objects_v2").paginate(Bucket=BUCKET)
    return {item["Key"]: item["ETag"] for page in pages for item in page.get("Contents", [])}


def touched(before: dict[str, str], after: dict[str, str]) -> tuple[int, int]:
    """(created or changed, deleted) objects."""
    written = sum(1 for key, etag in after.items() if before.get(key) != etag)
    return written, sum(1 for key in before if key not in after)


def make_project(server: S3Server, work: Path, table: str) -> Path:
    root = work / "project"
    assert main(["init", str(root)]) == 0
    options = json.dumps({key: str(value) for key, value in server.storage_options().items()})
    profiles = root / "profiles.yml"
    target = f"      engine: local\n      storage_options: {options}"
    profiles.write_text(profiles.read_text().replace("      engine: auto", target))
    manifest = f"version: 1\ntables:\n  - name: t\n    path: {table}\n{SERVICES}\n"
    (root / "tables" / "example.yml").write_text(manifest)
    return root


def datagen(server: S3Server, table: str, args: argparse.Namespace) -> None:
    options = [a for k, v in server.storage_options().items() for a in ("--storage-option", f"{k}={v}")]
    command = ["datagen", table, "--table-type", "mor", "--table-version", "8",
               "--partitions", str(args.partitions), "--file-groups", "1", "--commits", str(args.commits),
               "--rows-per-commit", str(args.rows_per_commit), "--failed-write", "--engine", "local",
               *options]  # fmt: skip
    if args.metadata_table:
        command.append("--metadata-table")
    assert main(command) == 0


def compaction_inputs(plan: dict[str, Any]) -> int:
    """Base and log files the plan's compactions read."""
    slices = [
        a for t in plan["tables"] for n in t["nodes"] for a in n["actions"] if a["kind"] == "compact_slice"
    ]
    return sum(len(s["log_files"]) + (1 if s.get("base_file") else 0) for s in slices)


def run(server: S3Server, root: Path, *command: str) -> list[S3Request]:
    mark = server.request_count()
    code = main([*command, "--project-dir", str(root)])
    if code != 0:
        raise SystemExit(f"maintainer {command[0]} exited {code}")
    return server.requests()[mark:]


def report(name: str, sent: list[S3Request], floor: int, files: int | None = None) -> None:
    counts = by_method(sent)
    total = sum(counts.values())
    per_method = "  ".join(f"{m} {counts.get(m, 0)}" for m in METHODS)
    print(f"{name:5} {total:6} requests  ({per_method})")
    print(f"      floor {floor}: ratio {total / floor:.2f}x")
    print(f"      reads: {reads_by_what(sent)}")
    if files:
        print(f"      {files} files touched: {total / files:.2f} requests per file touched")


def bench(args: argparse.Namespace, work: Path) -> None:
    with moto_s3_server(work) as server:
        table = server.create_bucket(BUCKET) + "/" + TABLE_PREFIX
        os.chdir(work)  # datagen's expected rows go here, not beside the table
        os.environ["HOME"] = str(work / "home")
        datagen(server, table, args)
        root = make_project(server, work, table)
        planned = run(server, root, "plan")
        plan = json.loads((root / "target" / "plan" / "plan.json").read_text())
        before = objects(server)
        applied = run(server, root, "apply", str(root / "target" / "plan"))
        written, deleted = touched(before, objects(server))
    files = written + deleted
    inputs = compaction_inputs(plan)
    mdt = "with its metadata table" if args.metadata_table else "no metadata table"
    print(f"table: MOR v8, {args.partitions} partitions x 1 file group, {args.commits} commits, {mdt}")
    report("plan", planned, 2 + args.partitions)
    print(f"      (floor: 1 GET hoodie.properties + 1 LIST timeline + {args.partitions} partition LISTs)")
    report("apply", applied, 2 + inputs + files, files)
    print(f"      (floor: 1 GET hoodie.properties + 1 LIST timeline + {inputs} compaction inputs read + "
          f"{written} objects written + {deleted} deleted)")  # fmt: skip


def main_bench() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--commits", type=int, default=4)
    parser.add_argument("--rows-per-commit", type=int, default=2000)
    parser.add_argument("--no-metadata-table", dest="metadata_table", action="store_false")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-s3-") as work:
        bench(args, Path(work))


if __name__ == "__main__":
    main_bench()
