"""The columnar view against the object view: names parsed as :mod:`.datafiles` parses them,
and the same slices, files and uncommitted files on synthetic and random table states."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings

from maintainer.hudi.file_groups.columnar import build_batch, listed_frame, parse_names, view_batches
from maintainer.hudi.file_groups.datafiles import parse_data_files
from maintainer.hudi.file_groups.fsview import FileSystemView, ViewInputs, build_view, built_now
from maintainer.hudi.instants.timeline import Timeline
from maintainer.storage import FileInfo
from maintainer.storage.listing import DirListing
from tests.support.random_tables import RandomTable, random_tables
from tests.unit.hudi.file_groups.test_fsview import FG, T1, T2, T3, T4, P, base, log, other, v6, v8

SliceRow = tuple[str, str, str, tuple[str, ...]]


def object_slices(view: FileSystemView) -> set[SliceRow]:
    return {
        (g.partition, g.file_id, s.base_instant, tuple(sorted(f.name for f in s.files)))
        for g in view.file_groups(include_replaced=True)
        for s in g.slices
    }


def columnar_slices(
    timeline: Timeline, listings: dict[str, list[FileInfo]], inputs: ViewInputs, batch_files: int
) -> tuple[set[SliceRow], int]:
    rows: set[SliceRow] = set()
    uncommitted = 0
    for batch in view_batches(timeline, listings, inputs, batch_files):
        names: dict[tuple[int, str, str], list[str]] = {}
        for part, file_id, instant, name in batch.files.select(
            "part", "file_id", "slice", "name"
        ).iter_rows():
            names.setdefault((part, file_id, instant), []).append(name)
        for part, file_id, instant in batch.slices.iter_rows():
            files = tuple(sorted(names.get((part, file_id, instant), [])))
            rows.add((batch.partitions[part], file_id, instant, files))
        uncommitted += sum(batch.uncommitted.values())
    return rows, uncommitted


def assert_same_view(timeline: Timeline, listings: dict[str, list[FileInfo]], inputs: ViewInputs) -> None:
    view = built_now(build_view(timeline, listings, inputs))
    for batch_files in (1, 1_000):
        assert columnar_slices(timeline, listings, inputs, batch_files) == (
            object_slices(view),
            len(view.uncommitted),
        )


NAMES = [
    "aaaa-0_0-1-2_20250101000000000.parquet",
    "aaaa-0_0-1-2_20250101000000.orc",  # 14 digits
    "aaaa-0_0-1-2_20250101000000000.txt",  # not a base file extension
    "aa_aa-0_0-1-2_20250101000000000.parquet",  # '_' in the file id: no base file
    f"bbbb-0_0-1-2_{'٣' * 17}.parquet",  # non-ASCII digits: the full pattern takes them
    ".aaaa-0_20250101000000000.log.1_0-1-2",
    ".aaaa-0_20250101000000000.log.12",  # no write token
    ".aa_aa-0_20250101000000000.log.1_0-1-2",  # '_' in the file id: the full pattern
    ".aaaa-0_20250101000000000.log.1_0-1-2.cdc",  # CDC log: not a data file
    ".aaaa-0_20250101000000000.archive.1_0-1-2",  # archive log: not a data file
    ".aaaa-0_.log.1_0-1-2",  # empty instant
    "._aaaa-0_0-1-2_20250101000000000.parquet",
    ".hoodie_partition_metadata",
    "aaaa-0_0-1-2_20250101000000000.parquet.crc",
    "_SUCCESS",
]


def test_names_parse_as_the_object_view_parses_them() -> None:
    sizes: list[int | None] = [len(name) if i % 3 else None for i, name in enumerate(NAMES)]
    listing = DirListing(P, NAMES, sizes, [False] * len(NAMES), [None] * len(NAMES))
    expected = {
        (
            f.name,
            f.size,
            f.file_id,
            f.instant_time,
            getattr(f, "log_version", None),
            getattr(f, "write_token", None),
        )
        for f in parse_data_files(P, listing)
    }
    parsed = parse_names(listed_frame({P: listing.infos()}, (P,)), (P,))
    columns = ("name", "size", "file_id", "instant", "log_version", "write_token")
    assert set(parsed.select(columns).iter_rows()) == expected
    assert len(expected) == 7


def test_v8_logs_go_to_the_greatest_base_at_or_before_their_completion() -> None:
    timeline = v8(f"{T1}_{T1[:-3]}100.commit", f"{T3}_{T3[:-3]}200.commit", f"{T2}_{T4}.deltacommit")
    files = [base(FG, T1), base(FG, T3), log(FG, T2)]
    batch = build_batch(timeline, {P: files}, (P,), ViewInputs())
    assert dict(batch.files.select("name", "slice").iter_rows())[log(FG, T2).name] == T3
    assert_same_view(timeline, {P: files}, ViewInputs())


def test_v8_logs_before_every_base_open_slices_as_the_object_view_does() -> None:
    timeline = v8(
        f"{T1}_{T1[:-3]}100.deltacommit", f"{T2}_{T2[:-3]}100.deltacommit", f"{T3}_{T3[:-3]}200.commit"
    )
    files = [log(FG, T1), log(FG, T2), base(FG, T3)]
    batch = build_batch(timeline, {P: files}, (P,), ViewInputs())
    assert sorted(batch.slices.get_column("slice").to_list()) == [T1, T3]
    assert_same_view(timeline, {P: files}, ViewInputs())


def test_v6_logs_name_their_slice_and_pending_writes_are_uncommitted() -> None:
    timeline = v6(f"{T1}.commit", f"{T2}.deltacommit", f"{T3}.deltacommit.inflight")
    files = [base(FG, T1), log(FG, T1), base(FG, T3), other("notes.txt"), other("sub", is_dir=True)]
    batch = build_batch(timeline, {P: files}, (P,), ViewInputs())
    assert batch.uncommitted == {0: 1}
    assert_same_view(timeline, {P: files}, ViewInputs())


@settings(max_examples=150, deadline=None)
@given(random_tables())
def test_the_columnar_view_is_the_object_view_on_random_tables(table: RandomTable) -> None:
    assert_same_view(table.timeline, table.listings, table.inputs)


def test_a_names_only_listing_frames_its_files_with_unlisted_sizes_and_without_pandas(tmp_path: Path) -> None:
    """The sizes a names-only listing did not read are :data:`UNLISTED_SIZE`; making them must
    not import pandas (``pa.array`` of a NumPy array does: a quarter of a second, 30 MB)."""
    partition = tmp_path / "p"
    partition.mkdir()
    (partition / "a.parquet").write_bytes(b"12345")
    script = (
        "import sys\n"
        "from maintainer.hudi.file_groups.columnar import UNLISTED_SIZE, listed_frame\n"
        "from maintainer.storage import Storage\n"
        "from maintainer.storage.listing import Listings\n"
        f"storage = Storage({str(tmp_path)!r})\n"
        "listings = Listings(storage.list_dirs_columns(['p'], sizes=False))\n"
        "frame = listed_frame(listings, ('p',))\n"
        "assert frame.get_column('size').to_list() == [UNLISTED_SIZE], frame\n"
        "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
