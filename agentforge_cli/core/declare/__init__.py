"""Declare: what a tool's author writes — ``@tool``, ``P(...)`` and the numeric aliases."""
