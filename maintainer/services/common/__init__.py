"""Pieces several services share (so no service imports another)."""
