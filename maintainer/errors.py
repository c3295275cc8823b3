"""One error hierarchy for everything the tool reports to a user.

Every error says what is wrong, where (a file and line, a table, an instant) and
what to do about it. The CLI prints ``str(error)`` and exits non-zero; it never
shows a traceback for a ``MaintainerError``.
"""

from __future__ import annotations


class MaintainerError(Exception):
    """Base of every error the tool raises on purpose.

    ``where`` names the place (``tables/a.yml:12:3``, a table path, an instant file);
    ``hint`` says what the user can do.
    """

    exit_code = 1

    def __init__(self, message: str, *, where: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.hint = hint

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}" if self.where else self.message
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class UsageError(MaintainerError):
    """The command line itself is wrong (exit code 64)."""

    exit_code = 64


class ManifestError(MaintainerError):
    """A project file, profile or manifest is invalid."""


class StorageError(MaintainerError):
    """Reading or writing the file system or object store failed."""


class FileExistsInStorageError(StorageError):
    """A write-once file already exists."""


class TableFormatError(MaintainerError):
    """A table is not a Hudi table we can read: missing or corrupt files, unsupported version."""


class UnsupportedTableError(TableFormatError):
    """A valid Hudi table that this tool does not support (version, format)."""


class CorruptFileError(TableFormatError):
    """A Hudi file (instant, log block, payload) cannot be decoded."""


class TimelineWriteError(MaintainerError):
    """A write to the timeline was refused (existing instant, time not increasing, bad transition)."""


class PlanError(MaintainerError):
    """A plan cannot be made, or a saved plan is invalid, tampered or stale."""


class PlanAlreadyAppliedError(PlanError):
    """Every node of the plan with changes is applied already: nothing is left to do (apply says
    so and succeeds; re-running a plan that completed is not an error)."""


class ApplyError(MaintainerError):
    """Carrying out a plan failed."""


class PreconditionFailedError(StorageError):
    """A conditional replace was refused: the object is no longer at the version read (S3 412 on
    ``If-Match``, GCS 412 on ``ifGenerationMatch``, or the object is gone)."""


class StorageUnavailableError(StorageError):
    """A storage request failed in a way worth retrying, its outcome unknown (throttling, a
    server error, a conditional-request conflict, a timeout)."""


class StateConflictError(StorageError):
    """The state backend's manifest kept changing under an apply's update: every conditional
    write (re-read and merged each time) was refused."""


class ConditionalWriteUnsupportedError(StorageError):
    """The storage has no atomic create-if-absent / compare-and-replace (HDFS through pyarrow)."""
