"""Bind: a model's argument string parsed, repaired and bound to the function's parameters."""
