"""What writes a table's instants: one package per table service's executor
(``executors/<name>``), what they share (``executors/common``: rollback machinery, the
metadata-table sync, markers) and the fault hook (``executors/faults.py``). The plan side
(``maintainer.services``) calls them; they never import it."""
