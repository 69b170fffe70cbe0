"""Help desk tools for the support agent."""
