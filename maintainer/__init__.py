"""maintainer: declarative, reviewable maintenance of Apache Hudi tables."""

import logging

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())  # a library prints nothing itself
