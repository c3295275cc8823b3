"""The Hudi table model: properties, instants and timeline, file names, file-system view,
payload serde, the log format, and readers/writers of base and log files."""
