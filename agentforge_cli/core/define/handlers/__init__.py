"""Type handlers: the schema and the coercer of every supported type, in one registry."""
