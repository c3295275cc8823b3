"""Batch deletes on local storage: deleted, already gone, and refused (a link, a folder that
resolves outside the table), each said, none raised."""

from __future__ import annotations

import os
from pathlib import Path

from maintainer.storage import Storage


def test_deleted_gone_and_refused_are_told_apart(tmp_path: Path) -> None:
    table = tmp_path / "t"
    (table / "p").mkdir(parents=True)
    for name in ("a.parquet", "b.parquet"):
        (table / "p" / name).write_bytes(b"x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c.parquet").write_bytes(b"keep me")
    os.symlink(outside / "c.parquet", table / "p" / "link.parquet")
    os.symlink(outside, table / "q")

    done = Storage(str(table)).delete_many(
        ["p/a.parquet", "p/b.parquet", "p/gone.parquet", "p/link.parquet", "q/c.parquet"]
    )
    assert done.deleted == ["p/a.parquet", "p/b.parquet"]
    assert done.gone == ["p/gone.parquet"]
    assert [path for path, _ in done.failed] == ["p/link.parquet", "q/c.parquet"]
    assert "symbolic link" in done.failed[0][1] and "outside the table" in done.failed[1][1]
    assert (outside / "c.parquet").read_bytes() == b"keep me"
    assert sorted(p.name for p in (table / "p").iterdir()) == ["link.parquet"]
