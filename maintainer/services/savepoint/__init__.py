"""Savepoints: the manifest's desired set, created and deleted as Hudi does.

``planner.plan_savepoints(SavepointInputs, SavepointsSpec, now)`` is pure;
``state.load_savepoint_inputs`` reads its inputs; ``maintainer.executors.savepoint.create_savepoint`` /
``delete_savepoint`` carry one savepoint change out.
"""
