"""Helpers shared by the test suite (fixture tables, the hudi oracle)."""
