"""The cleaner: delete file slices no reader needs any more (Hudi's CleanPlanner)."""
