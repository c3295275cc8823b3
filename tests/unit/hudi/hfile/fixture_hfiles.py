"""The HFiles of the fixture tables' metadata tables: base ``.hfile`` files and HFILE_DATA log blocks.

Tables with a metadata table are the table-version 8 quickstart one (HBase-written HFiles) and the
table-version 9 ones (Hudi's own writer); the ``nometa`` and version 6 fixtures have none. Zip
resource forks (``._*`` files) are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from maintainer.hudi.logformat.model import BlockType
from maintainer.hudi.logformat.reader import read_log_file
from maintainer.storage.fs import Storage
from tests.support.fixtures import fixture_names, unpack


@dataclass(frozen=True)
class FixtureHFile:
    """One HFile's bytes and a name for it (the file, plus the log block for log content)."""

    where: str
    data: bytes
    table_version: int


V8_WITH_METADATA = "quickstart_trips_table_mor_avro_v8_trips_8i3u1d"


def metadata_fixture_names() -> list[str]:
    """Fixtures whose table has a metadata table (decided by name, so tests can be parametrized)."""
    return [name for name in fixture_names() if _has_metadata(name)]


def _has_metadata(name: str) -> bool:
    return ("_v9_" in name and "nometa" not in name) or name == V8_WITH_METADATA


def table_version(name: str) -> int:
    return 8 if "_v8_" in name else 9


def fixture_hfiles(name: str, into: Path) -> list[FixtureHFile]:
    """Every HFile of fixture ``name``'s metadata table, unpacking it below ``into`` if needed."""
    metadata = unpack(name, into).path / ".hoodie" / "metadata"
    version = table_version(name)
    found = [
        FixtureHFile(str(path), path.read_bytes(), version)
        for path in sorted(metadata.glob("*/*.hfile"))
        if not path.name.startswith("._")
    ]
    storage = Storage(str(metadata))
    for path in sorted(metadata.glob("*/.*.log.*")):
        if path.name.startswith("._"):
            continue
        for number, block in enumerate(read_log_file(storage, str(path.relative_to(metadata)))):
            if block.block_type is BlockType.HFILE_DATA:
                found.append(FixtureHFile(f"{path} block {number}", block.content, version))
    return found
