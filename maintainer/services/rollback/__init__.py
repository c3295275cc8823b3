"""Roll back failed writes (Hudi's failed-writes cleaning and rollback action).

``planner.plan_rollback(RollbackInputs, RollbackSettings, now)`` is pure;
``state.load_rollback_inputs(LoadedTable)`` reads its inputs; ``executor.run_rollback(storage,
config, PlannedRollback, runner=..., fault=...)`` carries one planned rollback out;
``table_service.rollback_table_service`` rolls back the failed attempt of an inflight
compaction with a rollback instant (or finishes the pending rollback of it), as compaction does
before it runs again.
"""
