"""Compaction of merge-on-read tables (HUDI.md §5): the pure planner, the per-operation merge,
the executor, and the plan/apply node.

* :mod:`.settings` — :class:`CompactionSettings` (trigger, strategy; from the manifest's
  ``CompactionSpec``);
* :mod:`.planner` — ``plan_compaction(CompactionInputs(timeline, view, config), settings, now,
  instant_time=None) -> CompactionPlanResult`` (:mod:`.model`), with :mod:`.trigger` and
  :mod:`.strategy`; :mod:`.payload` builds the ``HoodieCompactionPlan`` (version 2);
* :mod:`.operation` — ``compact_slice(CompactionTask) -> WriteStat``, a picklable task that
  merges one slice (:mod:`.log_state`, :mod:`.base_merge`, :mod:`.keys`) into a new base file;
* :mod:`.executor` — ``run_compaction(storage, config, instant, plan, runner)``: requested ->
  inflight -> operations -> completed ``commit`` (:mod:`.commit`), rolling back an inflight
  attempt first; runners in process, on threads or on Spark;
* :mod:`.node` / :mod:`.apply` — the plan node (actions, effect, payload) and its executor.
"""
