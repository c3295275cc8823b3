"""The compaction's executor: requested -> inflight -> the merge of each slice (:mod:`.operation`, with
:mod:`.log_state`, :mod:`.base_merge`, :mod:`.keys`, the file settings of :mod:`.codec`) -> the
completed ``commit`` (:mod:`.commit`), rolling back an inflight attempt first."""
