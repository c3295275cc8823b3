"""What a killed writer left half done, finished or undone before a node changes the table
(under the table lock, so that no other maintainer writer is under way):

* ``hoodie.properties`` recovered from its backup, or a stale backup deleted, as Hudi's
  ``HoodieTableConfig.recover`` does (:mod:`maintainer.hudi.config.properties_update`);
* each table service's completion cut short
  (:class:`maintainer.hudi.file_groups.integrity.InterruptedCompletion`):
  its completed file is deleted, so the instant is inflight again and its service completes it;
* temporary files of atomic writes killed mid-write (:mod:`maintainer.storage.atomic`) deleted
  from the table's metadata folders (elsewhere every reader ignores them).
"""

from __future__ import annotations

from maintainer.hudi.config.java_properties import PROPERTIES_FILE
from maintainer.hudi.config.properties_update import recover_properties
from maintainer.hudi.file_groups.integrity import find_interrupted_completions
from maintainer.hudi.instants.heartbeat import HEARTBEAT_DIR
from maintainer.hudi.table.snapshot import METADATA_TABLE_DIR, PROPERTIES_BACKUP, load_config, load_timeline
from maintainer.storage import Storage


def recover_interrupted_writes(storage: Storage) -> list[str]:
    """Finish or undo what killed writes left (see the module docstring); what was done, one
    line each."""
    if not (storage.exists(PROPERTIES_FILE) or storage.exists(PROPERTIES_BACKUP)):
        return []  # not a Hudi table: the node says so
    done = []
    recovered = recover_properties(storage)
    if recovered is not None:
        done.append(recovered)
    config = load_config(storage)
    for item in find_interrupted_completions(storage, load_timeline(storage, config)):
        storage.delete(item.path)
        done.append(
            f"deleted {item.path}, the completion of {item.instant.action.value} {item.instant.timestamp} "
            f"cut short ({item.problem}): it is inflight again and is completed anew"
        )
    folders = {".hoodie", config.timeline_dir, config.archive_dir, f"{METADATA_TABLE_DIR}/.hoodie",
               f"{METADATA_TABLE_DIR}/{config.timeline_dir}", HEARTBEAT_DIR,
               f"{METADATA_TABLE_DIR}/{HEARTBEAT_DIR}"}  # fmt: skip
    done += [
        f"deleted {path}, left by a write killed half-way"
        for path in storage.sweep_temp_files(sorted(folders))
    ]
    return done
