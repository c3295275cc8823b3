"""Generate real Hudi tables (COW/MOR, table versions 6 and 8) for the demo, tests and benchmarks."""
