"""Spark: one session per run from a profile target, and Arrow-based task helpers.

Only this package, ``runner/`` and the services' executors import pyspark.
"""
