"""``agentforge eval``: a model asked again at every recorded decision, with today's tools.

``decisions.py`` finds the decisions of a transcript (each model turn that made tool calls,
with the conversation before it), ``judge.py`` compares a new reply with the recorded
calls under today's binding, ``run.py`` asks (repeated, concurrently) and ``scores.py``
counts agreement, pass^k and pass@k per decision and per tool. Nothing here prints.
"""
