"""Compaction of merge-on-read tables: the pure planner, the per-operation merge, the executor."""
