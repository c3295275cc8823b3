"""Archive old instants from the active timeline (Hudi's timeline archiver).

``planner.plan_archive(ArchiveInputs, ArchiveSpec)`` is pure; ``state.load_archive_inputs``
reads its inputs; ``maintainer.executors.archive.executor.run_archive(storage, config, plan,
fault=...)`` writes the archived timeline (v6 archive log files, v8 LSM history) and then deletes
the archived instant files.
"""
