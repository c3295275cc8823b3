"""The clean's executor: requested -> inflight -> the deletions by partition -> completed."""
