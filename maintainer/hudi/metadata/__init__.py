"""The Hudi metadata table (``.hoodie/metadata``) of table versions 8 and 9: its partitions,
records and sync state (read side), and the records each table service writes into it."""
