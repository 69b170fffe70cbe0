"""Targets: what a command names, imported and loaded into tools."""
