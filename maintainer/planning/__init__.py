"""Making a plan: open the selected tables, plan every node with its service (``builder``), and
render the result for people (``render``). Above the services, below the commands."""
