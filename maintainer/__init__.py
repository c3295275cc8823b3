"""maintainer: declarative, reviewable maintenance of Apache Hudi tables."""

__version__ = "0.1.0"
