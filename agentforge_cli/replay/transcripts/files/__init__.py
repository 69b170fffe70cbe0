"""Transcript files: containers, records, detection, and how a file is laid out and written."""
