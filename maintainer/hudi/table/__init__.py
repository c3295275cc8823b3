"""A Hudi table as read at one moment: its snapshot from storage (``snapshot``: properties,
timeline, partitions, listings), the state every reader and planner works on (``state``: the
snapshot, the facts decoded from its instants and the file-system view), its schema, the
projections of a plan's earlier nodes, what a killed writer left to recover, and what looks at
a whole table (``inspection``, ``orphans``, ``discovery`` of tables under a prefix)."""
