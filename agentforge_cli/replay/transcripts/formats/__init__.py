"""The transcript formats replay reads, one module each."""
