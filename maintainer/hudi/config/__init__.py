"""hoodie.properties: the table config, its Java properties format, and its atomic update."""
