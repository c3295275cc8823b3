"""File names, file groups and slices, the file-system view, data-file checks against the commits."""
