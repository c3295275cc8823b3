"""A table's records: the merged file-slice reader (snapshot, time travel, read-optimized), the
merge of base rows and log records by key, and record-key ranges as Hudi's writer keeps them."""
