"""The archival's executor: the archived timeline written (v6 archive log files, :mod:`.v6_log`; v8
LSM history, :mod:`.lsm`, with the entries of :mod:`.entries`), then the archived instant files
deleted. :mod:`.selection` holds what the planner selects and the executor archives."""
