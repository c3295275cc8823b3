"""Whole-file writes that readers see complete or not at all, on local disk.

A file is written under a temporary name in its own folder, flushed to disk (``fsync``), then
renamed into place: ``os.replace`` for an overwrite, a hard link for a create that must find
nothing there (``link`` fails on an existing name, so a create-if-absent still refuses). A
process killed mid-write leaves only the temporary file, never a cut-short file under the real
name. (Object stores need none of this: a small file is one PUT, all or nothing.)

Temporary names start with :data:`TEMP_PREFIX` and hold no ``_``, ``.log.`` or known extension,
so no reader takes them for a table file: Hudi's and hudi-rs's timelines keep only instant file
names, their partition listings only base and log file names (Hudi's log-file pattern matches a
name's start, so the temporary name never starts with the target's name), and maintainer's
parsers likewise. A leftover one is removed by :func:`sweep_temp_files` (apply runs it on a
table's metadata folders under the table lock).

:data:`PARTIAL_WRITE_ENV` is the crash campaign's fault hook: the N-th atomic write of the
process writes half its bytes into its temporary file, then the process kills itself
(``SIGKILL``), as a real crash mid-write would leave it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import uuid
from collections.abc import Iterable

TEMP_PREFIX = ".maintainer-tmp-"

PARTIAL_WRITE_ENV = "MAINTAINER_FAULT_PARTIAL_WRITE"
"""``N``: the N-th atomic write of the process writes half its bytes, then the process is
killed; ``count:FILE``: each atomic write appends its path to FILE (the campaign's census)."""


def temp_name() -> str:
    """A fresh temporary name (see the module docstring for why it looks like this)."""
    return f"{TEMP_PREFIX}{uuid.uuid4().hex}"


def is_temp_name(name: str) -> bool:
    """Whether ``name`` (a base name) is a temporary file of an atomic write."""
    return name.startswith(TEMP_PREFIX)


class _WriteCounter:
    """Counts the atomic writes of this process, for :data:`PARTIAL_WRITE_ENV`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0

    def next(self) -> int:
        with self._lock:
            self._count += 1
            return self._count


_COUNTER = _WriteCounter()


def _armed_write(path: str) -> bool:
    """Whether this write is the one :data:`PARTIAL_WRITE_ENV` cuts short (and record it in
    the census when counting)."""
    armed = os.environ.get(PARTIAL_WRITE_ENV, "")
    if not armed:
        return False
    number = _COUNTER.next()
    if armed.startswith("count:"):
        with open(armed[len("count:") :], "a", encoding="utf-8") as census:
            census.write(f"{number}\t{path}\n")
        return False
    return armed.strip().isdigit() and int(armed) == number


def crash() -> None:
    """End this process at once, as ``kill -9`` would (no cleanup, no ``finally``)."""
    os.kill(os.getpid(), signal.SIGKILL)


def write_temp(folder: str, data: bytes, target: str, durable: bool = True) -> str:
    """Write ``data`` to a new temporary file in ``folder``, flushed to disk (``durable``: an
    ``fsync``, so that a power loss after the rename cannot leave the name with no bytes); its
    path."""
    temp = os.path.join(folder, temp_name())
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    with os.fdopen(fd, "wb") as handle:
        if _armed_write(target):
            handle.write(data[: len(data) // 2])
            handle.flush()
            os.fsync(handle.fileno())
            crash()  # the fault hook: a crash mid-write
        handle.write(data)
        handle.flush()
        if durable:
            os.fsync(handle.fileno())
    return temp


def replace_file(full: str, data: bytes, durable: bool = True) -> None:
    """Write (or overwrite) the local file ``full`` atomically."""
    folder = os.path.dirname(full)
    os.makedirs(folder, exist_ok=True)
    temp = write_temp(folder, data, full, durable)
    try:
        os.replace(temp, full)
    except Exception:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def create_file(full: str, data: bytes, durable: bool = True) -> None:
    """Create the local file ``full`` atomically; ``FileExistsError`` where something is there
    already (nothing is changed then)."""
    folder = os.path.dirname(full)
    os.makedirs(folder, exist_ok=True)
    if os.path.lexists(full):
        raise FileExistsError(full)
    temp = write_temp(folder, data, full, durable)
    try:
        _link_into_place(temp, full)
    finally:  # linked (the temporary name goes) or refused (it goes too)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def _link_into_place(temp: str, full: str) -> None:
    """``link`` refuses an existing name in the same step as it creates one. Where the file
    system has no hard links, the name is checked, then the file renamed (the table lock keeps
    other maintainer processes out meanwhile)."""
    try:
        os.link(temp, full)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(full):
            raise FileExistsError(full) from None
        os.rename(temp, full)


def sweep_temp_files(folders: Iterable[str]) -> list[str]:
    """Delete the temporary files left in local ``folders`` by killed writes (call it only
    where no write can be under way: under the table lock); the paths deleted."""
    removed = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if is_temp_name(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)
                    removed.append(entry.path)
    return removed
