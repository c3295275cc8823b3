"""Clustering (Hudi's size-based clustering, clustering-facts §1): rewrite the small file slices
of a partition together into fewer, larger file groups, as one ``replacecommit``.

The plan side (pure):

* :mod:`.settings` — the manifest's ``clustering`` block (:class:`ClusteringSpec`), its rules
  and the one-line description of the partitions it touches;
* :mod:`.trigger` — Hudi's ``max.commits`` trigger;
* :mod:`.planner` — ``plan_clustering(ClusteringInputs, spec, now, instant_time=None) ->
  ClusteringPlanResult`` (:mod:`.model`), with :mod:`.partitions` and :mod:`.grouping`;
  :mod:`.inputs` reads the payloads it needs from an opened table
  (``read_clustering_inputs``; ``plan_table_clustering`` does both);
* :mod:`.payload` — the ``HoodieRequestedReplaceMetadata`` written as the requested instant.
"""
