"""The pytest plugin and its routes (replay, fuzz)."""
