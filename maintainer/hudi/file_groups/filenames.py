"""Hudi data-file names as value objects that parse a name and format it back byte-identically.

* base file: ``{fileId}_{writeToken}_{instantTime}{ext}``
* log file: ``.{fileId}_{instant}.log.{version}_{writeToken}[.cdc]`` (v6: the instant is the
  file slice's base instant; v8+: the deltacommit's own instant)
* write token: ``{taskPartitionId}-{stageId}-{taskAttemptId}``
* marker: ``{dataFileName}.marker.{CREATE|MERGE|APPEND}`` under ``.hoodie/.temp/<instant>/<partition>/``
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from enum import Enum

PARTITION_METADATA_PREFIX = ".hoodie_partition_metadata"
DEFAULT_WRITE_TOKEN = "1-0-1"
JUNK_NAMES = frozenset({".DS_Store", "_SUCCESS", "Thumbs.db"})

BASE_FILE_PATTERN = re.compile(r"^([a-zA-Z0-9-]+)_(\d+-\d+-\d+)_(\d{14,17})(\.[a-zA-Z0-9]+)$")
LOG_FILE_PATTERN = re.compile(r"^\.(.+)_(\d*)\.(log|archive)\.(\d+)(?:_(\d+-\d+-\d+))?(\.cdc)?$")
BASE_FILE_EXTENSIONS = frozenset({".parquet", ".orc", ".hfile", ".lance"})
PLAIN_BASE_FILE_PATTERN = re.compile(
    r"([a-zA-Z0-9-]+)_[0-9]+-[0-9]+-[0-9]+_([0-9]{14,17})\.(?:parquet|orc|hfile|lance)", re.ASCII
)
"""Full matches: base files with ASCII digits (groups: file id, instant). Twice as fast as
:data:`BASE_FILE_PATTERN`, and where it matches, that one matches with the same file id and
instant and a known extension; where it does not, ask that one."""
PLAIN_LOG_FILE_PATTERN = re.compile(
    r"\.([^_]+)_([0-9]*)\.log\.([0-9]+)(?:_([0-9]+-[0-9]+-[0-9]+))?", re.ASCII
)
"""Full matches: log files (not archive, not CDC) whose file id has no ``_``, with ASCII digits
(groups: file id, instant, version, write token). Twice as fast as :data:`LOG_FILE_PATTERN`
(no backtracking), and where it matches, that one matches with the same groups (a later
``_`` could only start the write token, which has no ``.``); where it does not, ask that one."""
_MARKER_RE = re.compile(r"^(.+)\.marker\.(CREATE|MERGE|APPEND)$")


def is_junk(name: str) -> bool:
    """Files that are never part of a table (OS litter, checksums, editor files)."""
    return name in JUNK_NAMES or name.startswith("._") or name.endswith(".crc") or name == "__MACOSX"


def is_partition_metadata(name: str) -> bool:
    return name.startswith(PARTITION_METADATA_PREFIX)


@dataclass(frozen=True, slots=True)
class WriteToken:
    task_partition_id: int
    stage_id: int
    task_attempt_id: int

    @classmethod
    def parse(cls, text: str) -> WriteToken:
        first, second, third = (int(part) for part in text.split("-"))
        return cls(first, second, third)

    def __str__(self) -> str:
        return f"{self.task_partition_id}-{self.stage_id}-{self.task_attempt_id}"


@dataclass(frozen=True, slots=True)
class BaseFileName:
    file_id: str
    write_token: str
    instant_time: str
    extension: str = ".parquet"

    @classmethod
    def parse(cls, name: str) -> BaseFileName | None:
        match = BASE_FILE_PATTERN.match(name)
        if not match or match.group(4) not in BASE_FILE_EXTENSIONS:
            return None
        return cls(*match.groups())

    @property
    def name(self) -> str:
        return f"{self.file_id}_{self.write_token}_{self.instant_time}{self.extension}"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class LogFileName:
    file_id: str
    instant_time: str
    version: int
    write_token: str | None = None
    suffix: str = "log"
    is_cdc: bool = False

    @classmethod
    def parse(cls, name: str) -> LogFileName | None:
        match = LOG_FILE_PATTERN.match(name)
        if not match:
            return None
        file_id, instant, suffix, version, token, cdc = match.groups()
        return cls(file_id, instant, int(version), token, suffix, cdc is not None)

    @property
    def name(self) -> str:
        token = f"_{self.write_token}" if self.write_token is not None else ""
        cdc = ".cdc" if self.is_cdc else ""
        return f".{self.file_id}_{self.instant_time}.{self.suffix}.{self.version}{token}{cdc}"

    def sort_key(self) -> tuple[str, int, str]:
        """Hudi's log-file order: instant, version, write token."""
        return (self.instant_time, self.version, self.write_token or "")

    def __str__(self) -> str:
        return self.name


class MarkerType(str, Enum):
    CREATE = "CREATE"
    MERGE = "MERGE"
    APPEND = "APPEND"


@dataclass(frozen=True, slots=True)
class MarkerName:
    data_file_name: str
    marker_type: MarkerType

    @classmethod
    def parse(cls, name: str) -> MarkerName | None:
        match = _MARKER_RE.match(name)
        if not match:
            return None
        return cls(match.group(1), MarkerType(match.group(2)))

    @property
    def name(self) -> str:
        return f"{self.data_file_name}.marker.{self.marker_type.value}"


def new_file_id(index: int = 0, prefix: str | None = None) -> str:
    """A new file-group id ``{uuid}-{index}`` as Hudi creates them."""
    return f"{prefix or uuid.uuid4()}-{index}"


def is_data_file_name(name: str) -> bool:
    """True for Hudi base or log file names (the only files a plan may delete)."""
    if PLAIN_BASE_FILE_PATTERN.fullmatch(name) or PLAIN_LOG_FILE_PATTERN.fullmatch(name):
        return True  # where these match, the full patterns do (see them)
    return BaseFileName.parse(name) is not None or (
        (log := LogFileName.parse(name)) is not None and log.suffix == "log"
    )
