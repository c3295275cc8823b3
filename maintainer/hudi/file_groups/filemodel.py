"""The files of a table as the file-system view holds them: base files, log files, file slices
and file groups, frozen values whose constructors check their invariants (HUDI.md §2-§3).

* a file slice is one base instant of one file group: at most one base file, written at that
  instant, and the log files placed in it, in Hudi's log order, none twice;
* a file group is the slices of one file id in one partition, by strictly increasing base
  instant (as hudi-rs ``FileGroup::add_base_file`` refuses a base file of another file id or a
  second one at the same instant).

A violation is a programming error (a listing cannot produce one: the view's builder makes
these by construction, through their slots, without the checks): a ``ValueError``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class BaseFile:
    """A base file, ``{fileId}_{writeToken}_{instantTime}{ext}``: ``path`` is relative to the
    table base path."""

    partition: str
    name: str
    size: int
    file_id: str
    instant_time: str

    @property
    def path(self) -> str:
        return f"{self.partition}/{self.name}" if self.partition else self.name


@dataclass(frozen=True, slots=True)
class LogFile:
    """A log file, ``.{fileId}_{instant}.log.{version}[_{writeToken}]``: the instant is its
    slice's base instant on layout 1 and the deltacommit that wrote it on layout 2."""

    partition: str
    name: str
    size: int
    file_id: str
    instant_time: str
    log_version: int
    write_token: str | None
    """None in the names of writers that had none."""

    def log_order(self) -> tuple[str, int, str]:
        """Hudi's log-file order: instant, version, write token (none first)."""
        return (self.instant_time, self.log_version, self.write_token or "")

    @property
    def path(self) -> str:
        return f"{self.partition}/{self.name}" if self.partition else self.name


def _check_member(file: BaseFile | LogFile, partition: str, file_id: str) -> None:
    if file.file_id != file_id or file.partition != partition:
        raise ValueError(
            f"{file.path} (file id {file.file_id}) is not a file of file group {file_id} "
            f"in partition {partition!r}"
        )


@dataclass(frozen=True, slots=True)
class FileSlice:
    partition: str
    file_id: str
    base_instant: str
    base_file: BaseFile | None
    log_files: tuple[LogFile, ...] = ()

    def __post_init__(self) -> None:
        base = self.base_file
        if base is not None:
            if not isinstance(base, BaseFile):
                raise ValueError(f"the base file of a slice must be a BaseFile, not {base!r}")
            _check_member(base, self.partition, self.file_id)
            if base.instant_time != self.base_instant:
                raise ValueError(
                    f"base file {base.path} is not at its slice's base instant {self.base_instant}"
                )
        self._check_logs()

    def _check_logs(self) -> None:
        names: set[str] = set()
        previous: tuple[str, int, str] | None = None
        for log in self.log_files:
            if not isinstance(log, LogFile):
                raise ValueError(f"the log files of a slice must be LogFiles, not {log!r}")
            _check_member(log, self.partition, self.file_id)
            if log.name in names:
                raise ValueError(f"log file {log.path} is twice in its slice")
            order = log.log_order()
            if previous is not None and order < previous:
                raise ValueError(f"log file {log.path} is out of Hudi's log order in its slice")
            names.add(log.name)
            previous = order

    @property
    def files(self) -> tuple[BaseFile | LogFile, ...]:
        return ((self.base_file,) if self.base_file else ()) + self.log_files

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def is_empty(self) -> bool:
        return self.base_file is None and not self.log_files


@dataclass(frozen=True, slots=True)
class FileGroup:
    """A file group with its slices, oldest first."""

    partition: str
    file_id: str
    slices: tuple[FileSlice, ...]

    def __post_init__(self) -> None:
        previous: str | None = None
        for file_slice in self.slices:
            if file_slice.file_id != self.file_id or file_slice.partition != self.partition:
                raise ValueError(
                    f"a slice of file group {file_slice.file_id} in partition {file_slice.partition!r} "
                    f"is not one of file group {self.file_id} in partition {self.partition!r}"
                )
            if previous is not None and file_slice.base_instant <= previous:
                raise ValueError(
                    f"file group {self.file_id}: slice {file_slice.base_instant} after slice {previous} "
                    "(base instants must strictly increase)"
                )
            previous = file_slice.base_instant

    @property
    def latest_slice(self) -> FileSlice | None:
        return self.slices[-1] if self.slices else None

    def slices_newest_first(self) -> list[FileSlice]:
        return list(reversed(self.slices))
