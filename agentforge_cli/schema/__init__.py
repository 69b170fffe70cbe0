"""JSON Schema in, findings out: lint, drift, snapshots, provider exports."""
