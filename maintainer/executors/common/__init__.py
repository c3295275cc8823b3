"""What the executors share: rolling back an instant (its deletes, rollback blocks and instant), the
rollback of a table service's failed attempt, the metadata-table sync, markers, and the reading
and merging of file slices that rewrites share (compaction, clustering: ``slice_read``,
``log_state``, ``base_merge``, ``keys``, the written files' settings in ``codec``)."""
