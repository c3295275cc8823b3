"""Hudi table services: each a pure planner and a Spark executor."""
