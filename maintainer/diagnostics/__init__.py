"""``maintainer debug``: checks that a target can run, changing no table (as ``dbt debug``).

Each check says what it looked at, whether it passed, and how to fix it when it did not:
the project and profile (:mod:`.project_checks`), the Spark target: JDK or Connect server,
a session, one task on an executor (:mod:`.spark_checks`), and each table's storage: reachable,
a Hudi table of a supported version, readable, writable under the table only
(:mod:`.storage_checks`).
"""
