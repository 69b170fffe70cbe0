"""The Model Context Protocol: agentforge as a client, as a server, and as a recording proxy."""
