"""Example tool modules for agentforge: a CRM tool on a class, a weather function and a shop."""
