"""What the executors share: rolling back an instant (its deletes, rollback blocks and instant), the
rollback of a table service's failed attempt, the metadata-table sync, markers."""
