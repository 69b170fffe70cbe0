"""Run: executors, the service that dispatches calls, and what a result becomes."""
