"""The plan artifact: typed model, canonical JSON and hash, rendering, validation at apply."""
