"""Parquet base files: reading, writing (gzip pages, thrift footers), record-key bloom filters."""
