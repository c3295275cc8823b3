"""The rollback's executor: one planned rollback (:mod:`.model`) carried out, on the shared rollback
machinery of ``maintainer.executors.common``."""
