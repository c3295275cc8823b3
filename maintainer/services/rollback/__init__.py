"""Roll back failed writes (Hudi's failed-writes cleaning and rollback action).

``planner.plan_rollback(RollbackInputs, RollbackSpec, now)`` is pure;
``state.load_rollback_inputs(TableState)`` reads its inputs;
``maintainer.executors.rollback.executor.run_rollback(storage, config, PlannedRollback,
runner=..., fault=...)`` carries one planned rollback out;
rolling back one instant (deletes, rollback blocks, the rollback instant) is shared with
compaction, which rolls back the failed attempt of an inflight compaction before it runs again:
``maintainer.executors.common.rollback_instant`` and ``table_service_rollback``.
"""
