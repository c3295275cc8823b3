"""Upkeep of a data table's metadata table: its own compaction, clean and archival."""
