"""Orphan files: the data files and leftovers no instant accounts for, removed once older than
``min_age`` (deleted, or moved into the table's quarantine).

``state.load_orphan_inputs`` reads what the planner needs (the storage listing's orphans,
:mod:`maintainer.hudi.table.orphans`, and what the metadata table lists); ``planner.plan_orphans`` is
pure; ``maintainer.executors.orphans`` deletes or quarantines the files and restores a batch.
"""
