"""Carrying out a saved plan: the DAG walk, the per-table lock, the ledger, run results."""
