"""Compaction of merge-on-read tables (HUDI.md §5): the pure planner and the plan/apply node.

* :mod:`.settings` — :class:`CompactionSettings` (trigger, strategy; from the manifest's
  ``CompactionSpec``);
* :mod:`.planner` — ``plan_compaction(CompactionInputs(timeline, view, config), settings, now,
  instant_time=None) -> CompactionPlanResult`` (:mod:`.model`), with :mod:`.trigger` and
  :mod:`.strategy`; :mod:`.payload` builds the ``HoodieCompactionPlan`` (version 2);
* the executor is one floor down, in :mod:`maintainer.executors.compaction`: ``compact_slice``
  (``operation``), a picklable task that merges one slice into a new base file, and
  ``run_compaction(storage, config, instant, plan, runner)`` (``executor``): requested ->
  inflight -> operations -> completed ``commit``, rolling back an inflight attempt first;
  runners in process, on threads or on Spark;
* :mod:`.node` / :mod:`.apply` — the plan node (actions, effect, payload) and its executor.
"""
