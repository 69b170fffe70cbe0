"""Define: a callable read once into a definition, its schema and its type handlers."""
