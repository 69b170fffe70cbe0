"""Observe: recordings, call logs, traces, and secrets kept out of all of them."""
