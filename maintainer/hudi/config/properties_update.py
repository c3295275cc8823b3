"""Changing ``hoodie.properties`` as Hudi's ``HoodieTableConfig.modify`` does, and finishing a
change that was cut short as its ``recover`` (``ConfigUtils.recoverIfNeeded``) does.

Hudi's protocol: recover first; copy the current file to ``hoodie.properties.backup``; replace
``hoodie.properties``; check it; delete the backup. A reader that finds ``hoodie.properties``
missing or invalid reads the backup (:func:`maintainer.hudi.table.load_config`, as Hudi's
``fetchConfigs``), and the next writer recovers: it copies a valid backup over an unusable
file, and deletes a backup left beside a valid one.

One step differs, for the better: Hudi deletes ``hoodie.properties`` before writing the new one
(its create cannot overwrite in one step on HDFS); here the new file replaces the old in one
atomic step (a rename on local disk and HDFS, one PUT on object stores), so at every moment
``hoodie.properties`` is the old file or the new one, whole, and readers that never look at the
backup (hudi-rs) can open the table throughout. Everything else, backup and recovery included,
is Hudi's, so a Hudi writer recovers what a killed maintainer left and the other way round.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from maintainer.errors import CorruptFileError, TableFormatError
from maintainer.hudi.config.java_properties import PROPERTIES_FILE, parse_java_properties
from maintainer.hudi.config.properties import parse_table_config, read_properties_file
from maintainer.hudi.table.snapshot import PROPERTIES_BACKUP
from maintainer.storage import Storage


def _problem(storage: Storage, path: str) -> CorruptFileError | None:
    """Why the file at ``path`` is unusable (None: it is a valid ``hoodie.properties``)."""
    try:
        parse_table_config(read_properties_file(storage, path), where=storage.uri(path))
    except CorruptFileError as exc:
        return exc
    return None


def recover_properties(storage: Storage) -> str | None:
    """Finish a ``hoodie.properties`` update that was cut short (call it under the table lock):
    an unusable or missing file is replaced by a valid backup, and a backup beside a valid file
    is deleted. Returns what was done (None: nothing to do). Where the file is unusable and no
    valid backup exists, nothing is changed and the file's problem is raised."""
    has_file = storage.exists(PROPERTIES_FILE)
    problem = _problem(storage, PROPERTIES_FILE) if has_file else None
    has_backup = storage.exists(PROPERTIES_BACKUP)
    if has_file and problem is None:
        if not has_backup:
            return None
        storage.delete(PROPERTIES_BACKUP)
        return f"deleted {PROPERTIES_BACKUP}, left by an update that had written {PROPERTIES_FILE}"
    why = problem.message if problem is not None else "it was missing"
    if not has_backup or _problem(storage, PROPERTIES_BACKUP) is not None:
        if problem is not None:
            raise problem
        raise TableFormatError(
            "not a Hudi table: .hoodie/hoodie.properties not found",
            where=storage.base_uri,
            hint="check the table path (it must be the folder that holds .hoodie/)",
        )
    storage.write_bytes(PROPERTIES_FILE, read_properties_file(storage, PROPERTIES_BACKUP))
    storage.delete(PROPERTIES_BACKUP)
    return f"recovered {PROPERTIES_FILE} from {PROPERTIES_BACKUP} ({why})"


def modify_properties(
    storage: Storage,
    update: Callable[[dict[str, str]], Mapping[str, str]],
    render: Callable[[Mapping[str, str]], bytes],
) -> None:
    """Change ``hoodie.properties`` through Hudi's backup protocol (see the module docstring):
    ``update`` maps the current properties to the new ones, ``render`` writes them out (with
    the checksum). Call it under the table lock."""
    recover_properties(storage)
    original = read_properties_file(storage)
    current = parse_java_properties(original.decode("latin-1"), storage.uri(PROPERTIES_FILE))
    text = render(update(dict(current)))
    storage.write_if_absent(PROPERTIES_BACKUP, original)
    storage.write_bytes(PROPERTIES_FILE, text)
    try:
        parse_table_config(read_properties_file(storage), where=storage.uri(PROPERTIES_FILE))
    except CorruptFileError as exc:
        storage.write_bytes(PROPERTIES_FILE, original)  # put the valid original back
        storage.delete(PROPERTIES_BACKUP)
        raise CorruptFileError(
            f"the updated hoodie.properties did not verify, the original was put back: {exc.message}",
            where=storage.uri(PROPERTIES_FILE),
            hint="this is a bug in maintainer: report it with the table's hoodie.properties",
        ) from exc
    storage.delete(PROPERTIES_BACKUP)
