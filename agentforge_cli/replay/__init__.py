"""Recorded conversations replayed against today's tools."""
