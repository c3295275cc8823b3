"""The fleet's health for ``maintainer status``: per table, figures read from the table (what
ran last and when, pending instants, log backlog, small files, versions retained, timeline
length, the metadata table), why each selected service has no work (the planners' own
reasons), the objectives of its ``slo`` and a health score. Reads only; changes nothing."""
