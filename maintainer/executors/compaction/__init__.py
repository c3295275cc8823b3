"""The compaction's executor: requested -> inflight -> the merge of each slice (:mod:`.operation`,
with the slice reading and merging of :mod:`maintainer.executors.common`: ``slice_read``,
``log_state``, ``base_merge``, ``keys``, and the file settings of ``codec``) -> the completed
``commit`` (:mod:`.commit`), rolling back an inflight attempt first."""
