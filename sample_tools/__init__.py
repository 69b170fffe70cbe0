"""Example tool modules for agentforge: the seed's CRM tool, a weather function and a shop."""
